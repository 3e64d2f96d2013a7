#!/usr/bin/env python3
"""Builds the Kubernetes images as OCI image archives with no container engine and no registry
(docs/kubernetes.md, "Images"):

  kode-gopher-sandbox  Debian 12 (mmdebstrap, minbase) with packaging/debian-sandbox-image-packages.txt,
                       then sandbox/Dockerfile's final stage read as data (dockerfile_layout.py): its
                       RUN steps in the root filesystem, its files (this build's sandbox binaries,
                       the Go toolchain, the prewarmed caches without the module zips, the
                       lockfile, the image stamp) as one
                       layer, its ENV, USER, WORKDIR, EXPOSE and ENTRYPOINT as the image config
  kode-gopherd         the team daemon: Debian 12 (minbase) with packaging/debian-daemon-image-packages.txt,
                       then this build's `meson install` (daemon, CLI, plugins, sandbox parts,
                       lockfile) at /opt/kode-gopher and the Go toolchain at /opt/kode-gopher/go,
                       with sandbox/Dockerfile's daemon stage's ENV, USER, EXPOSE and ENTRYPOINT
  sandbox-router       agent-sandbox v1.0.1's Go router, built from its pinned module
                       (tests/k8s/tools/agent-sandbox, by tests/k8s/build-cluster-tools.sh), on the
                       packages of packaging/debian-router-image-packages.txt only unpacked, as uid
                       65532

Each is assembled with umoci into an OCI layout and written as `<out>/<name>.oci.tar` (the layout
as a tar: `skopeo copy oci-archive:...` or `crane push` takes it to a registry), with its
manifest digest in `<out>/<name>.digest`. Layers are made with every timestamp at
SOURCE_DATE_EPOCH (default 0) and root ownership, so the same inputs give the same layers.
An image whose inputs did not change is not built again (`<out>/<name>.inputs`).

Usage: build-images.py OUT --build-dir BUILD --k8s-tools DIR --base-cache DIR --base-modcache DIR
                       [--only sandbox|router|daemon]
  --base-cache, --base-modcache: a prewarmed Go build cache and module cache of the lockfile, made
  by `kode-gopherd --prewarm` (the same prewarm.sh steps as the Dockerfile's prewarm stage); the
  test suites pass the ones their daemons made, so CI does not prewarm twice.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dockerfile_layout import REPO, final_config, layout_sources, listed_packages  # noqa: E402

EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
MIRRORS = ["deb http://deb.debian.org/debian bookworm main",
           "deb http://deb.debian.org/debian bookworm-updates main",
           "deb http://deb.debian.org/debian-security bookworm-security main"]
# Documentation, manual pages and translations are left out of every image (copyright kept).
SLIM = ["--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-include=/usr/share/doc/*/copyright",
        "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/info/*",
        "--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/lintian/*"]
SANDBOX_PACKAGES = os.path.join(REPO, "packaging", "debian-sandbox-image-packages.txt")
ROUTER_PACKAGES = os.path.join(REPO, "packaging", "debian-router-image-packages.txt")
DAEMON_PACKAGES = os.path.join(REPO, "packaging", "debian-daemon-image-packages.txt")
DAEMON_PREFIX = "/opt/kode-gopher"
ROUTER_BINARY = "/usr/local/bin/sandbox-router"
# Left out of the sandbox image, as sandbox/Dockerfile's prewarm stage deletes them: the module
# zips (~190 MB). Builds read the extracted modules and check them against the .ziphash files kept
# beside the zips; with GOPROXY=off nothing downloads, so nothing needs a zip again.
LEFT_OUT = {"/opt/kode-gopher/gomodcache": lambda relative: relative.startswith("cache/download/")
            and relative.endswith(".zip")}
ROUTER_USER = "65532:65532"


def log(message):
    print(f"build-images: {message}", file=sys.stderr, flush=True)


def run(args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"build-images: {' '.join(args[:3])} ... failed ({result.returncode}):\n"
                         f"{result.stdout[-2000:]}{result.stderr[-3000:]}")
    return result.stdout


def debian_base(out, name, packages, variant, hook_script):
    """A root filesystem tar from Debian's packages (mmdebstrap), kept in <out>/cache and reused
    while its packages, variant and hook stay the same; .debs are kept in <out>/cache/debs."""
    cache = os.path.join(out, "cache")
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    key = hashlib.sha256(json.dumps([packages, variant, hook_script, MIRRORS, SLIM]).encode()).hexdigest()[:16]
    tar = os.path.join(cache, f"{name}-base-{key}.tar")
    if os.path.exists(tar):
        return tar
    log(f"{name}: Debian 12 {variant} with {' '.join(packages)} (mmdebstrap)")
    args = ["mmdebstrap", "--format=tar", f"--variant={variant}", "--include=" + ",".join(packages), *SLIM,
            "--skip=download/empty", "--skip=essential/unlink",
            f"--setup-hook=mkdir -p \"$1\"/var/cache/apt/archives && cp {debs}/*.deb \"$1\"/var/cache/apt/archives/ 2>/dev/null || true",
            f"--customize-hook=cp \"$1\"/var/cache/apt/archives/*.deb {debs}/ 2>/dev/null || true"]
    if hook_script:
        script = os.path.join(cache, f"{name}-hook-{key}.sh")
        with open(script, "w") as f:
            f.write(hook_script)
        args.append(f"--customize-hook={script} \"$1\"")
        os.chmod(script, 0o755)
    # mmdebstrap's own cleanup runs after the hooks: no apt lists or .debs stay in the image.
    run(args + ["bookworm", tar + ".tmp"] + MIRRORS, env=dict(os.environ, SOURCE_DATE_EPOCH=str(EPOCH)))
    os.replace(tar + ".tmp", tar)
    return tar


def reset(info):
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = EPOCH
    return info


def add_tree(layer, host, target, read_only, left_out=None):
    """`host` at `target` in the layer, root-owned, timestamps at EPOCH; read_only drops write
    bits (the Dockerfile's chmod -R a-w,a+rX for the caches)."""
    parents = []
    path = os.path.dirname(target.rstrip("/"))
    while path not in ("", "/"):
        parents.append(path)
        path = os.path.dirname(path)
    for parent in reversed(parents):
        if parent not in layer.added:
            info = reset(tarfile.TarInfo(parent.lstrip("/")))
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            layer.addfile(info)
            layer.added.add(parent)

    def tidy(info):
        if left_out and left_out(os.path.relpath(info.name, target.lstrip("/"))):
            return None
        reset(info)
        if read_only:
            info.mode = (info.mode & ~0o222) | 0o444 | (0o111 if info.isdir() or info.mode & 0o100 else 0)
        return info
    layer.add(host, arcname=target.lstrip("/"), recursive=True, filter=tidy)
    layer.added.add(target)


def inputs_digest(pairs, extra):
    """A digest of every input file's path, size and modification time, and `extra`."""
    h = hashlib.sha256(json.dumps(extra, sort_keys=True).encode())
    for host, target in pairs:
        for directory, dirs, files in os.walk(host) if os.path.isdir(host) else [(os.path.dirname(host), [], [os.path.basename(host)])]:
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(directory, name)
                st = os.lstat(path)
                h.update(f"{target}|{os.path.relpath(path, host)}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def assemble(out, name, base_tar, layer_tar, config):
    """The OCI layout of base + layer with `config`, as <out>/<name>.oci.tar; returns its digest."""
    layout = os.path.join(out, f"{name}.oci")
    shutil.rmtree(layout, ignore_errors=True)
    image = f"{layout}:latest"
    created = "1970-01-01T00:00:00Z" if EPOCH == 0 else \
        subprocess.run(["date", "-u", "-d", f"@{EPOCH}", "+%Y-%m-%dT%H:%M:%SZ"], capture_output=True,
                       text=True, check=True).stdout.strip()
    run(["umoci", "init", "--layout", layout])
    run(["umoci", "new", "--image", image])
    for tar, what in ((base_tar, "Debian 12 packages"), (layer_tar, "kode-gopher build outputs")):
        run(["umoci", "raw", "add-layer", "--image", image, "--history.created", created,
             "--history.created_by", what, tar])
    args = ["umoci", "config", "--image", image, "--created", created, "--author", "kode-gopher",
            "--os", "linux", "--architecture", "amd64", "--config.user", config["user"],
            "--config.workingdir", config.get("workdir", "/"), "--history.created", created]
    for key, value in config["env"].items():
        args += ["--config.env", f"{key}={value}"]
    for word in config["entrypoint"]:
        args += ["--config.entrypoint", word]
    for port in config.get("expose", []):
        args += ["--config.exposedports", port if "/" in port else port + "/tcp"]
    run(args)
    run(["umoci", "gc", "--layout", layout])
    with open(os.path.join(layout, "index.json")) as f:
        digest = json.load(f)["manifests"][0]["digest"]
    archive = os.path.join(out, f"{name}.oci.tar")
    with tarfile.open(archive + ".tmp", "w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(layout, arcname=".", filter=reset)
    os.replace(archive + ".tmp", archive)
    with open(os.path.join(out, f"{name}.digest"), "w") as f:
        f.write(digest + "\n")
    shutil.rmtree(layout)
    return digest


def build(out, name, packages, variant, hook, pairs, read_only_targets, config):
    inputs = inputs_digest(pairs, [packages, variant, hook, config, EPOCH, sorted(LEFT_OUT)])
    stamp = os.path.join(out, f"{name}.inputs")
    digest_file = os.path.join(out, f"{name}.digest")
    if os.path.exists(stamp) and os.path.exists(digest_file) and \
            os.path.exists(os.path.join(out, f"{name}.oci.tar")) and open(stamp).read() == inputs:
        log(f"{name}: up to date, {open(digest_file).read().strip()}")
        return
    base = debian_base(out, name, packages, variant, hook)
    with tempfile.NamedTemporaryFile(dir=out, suffix=".layer.tar") as layer_file:
        with tarfile.open(fileobj=layer_file, mode="w", format=tarfile.PAX_FORMAT) as layer:
            layer.added = set()
            for host, target in pairs:
                add_tree(layer, host, target, target in read_only_targets, LEFT_OUT.get(target))
        layer_file.flush()
        log(f"{name}: assembling with umoci")
        digest = assemble(out, name, base, layer_file.name, config)
    with open(stamp, "w") as f:
        f.write(inputs)
    size = os.path.getsize(os.path.join(out, f"{name}.oci.tar"))
    log(f"{name}: {out}/{name}.oci.tar, {size / 1e6:.0f} MB, {digest}")


def build_sandbox(out, args):
    config = final_config()
    # The final stage's RUN steps (the user gopher, /app, /persist, the home folder), in the root
    # filesystem, as the Dockerfile runs them.
    hook = "#!/bin/sh\nset -e\n" + "".join(
        f"chroot \"$1\" /bin/sh -ec {json.dumps(step)}\n" for step in config["runs"])
    scratch = os.path.join(out, "cache", "sandbox-files")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    pairs = layout_sources(args.build_dir, scratch, args.base_cache, args.base_modcache)
    read_only = {"/opt/kode-gopher/gocache-base", "/opt/kode-gopher/gomodcache",
                 "/opt/kode-gopher/gomodcache-extra", "/opt/kode-gopher/lockfile"}
    build(out, "kode-gopher-sandbox", listed_packages(SANDBOX_PACKAGES), "minbase", hook, pairs,
          read_only, config)


def build_daemon(out, args):
    config = final_config("daemon")
    # The install tree of this build (its prefix moved to /opt/kode-gopher: the daemon finds its
    # plugins, sandbox parts and lockfile relative to its own binary, daemon/install_layout.hpp).
    with open(os.path.join(args.build_dir, "meson-info", "intro-buildoptions.json")) as f:
        prefix = next(o["value"] for o in json.load(f) if o["name"] == "prefix")
    destdir = os.path.join(out, "cache", "daemon-install")
    shutil.rmtree(destdir, ignore_errors=True)
    # Stripped: debug symbols are half of a debugoptimized build's size, and nobody debugs in
    # the image.
    run(["meson", "install", "-C", args.build_dir, "--no-rebuild", "--quiet", "--skip-subprojects",
         "--strip", "--destdir", destdir])
    installed = os.path.join(destdir, prefix.lstrip("/"))
    go_root = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True,
                             check=True).stdout.strip()
    pairs = [(installed, DAEMON_PREFIX), (go_root, DAEMON_PREFIX + "/go")]
    build(out, "kode-gopherd", listed_packages(DAEMON_PACKAGES), "minbase", "", pairs, set(), config)


def build_router(out, args):
    binary = os.path.join(args.k8s_tools, "bin", "sandbox-router")
    if not os.path.exists(binary):
        raise SystemExit(f"build-images: no {binary}; run tests/k8s/build-cluster-tools.sh {args.k8s_tools}")
    # Only unpacked packages: the user the Deployment runs as and an empty /tmp are written here.
    hook = ("#!/bin/sh\nset -e\nmkdir -p \"$1/etc\" \"$1/tmp\"\nchmod 1777 \"$1/tmp\"\n"
            "printf 'root:x:0:0:root:/root:/sbin/nologin\\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\\n' > \"$1/etc/passwd\"\n"
            "printf 'root:x:0:\\nnonroot:x:65532:\\n' > \"$1/etc/group\"\n")
    config = {"env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}, "user": ROUTER_USER, "workdir": "/",
              "entrypoint": [ROUTER_BINARY], "expose": ["8080"]}
    build(out, "sandbox-router", listed_packages(ROUTER_PACKAGES), "extract", hook,
          [(binary, ROUTER_BINARY)], set(), config)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--k8s-tools", required=True)
    parser.add_argument("--base-cache")
    parser.add_argument("--base-modcache")
    parser.add_argument("--only", choices=["sandbox", "router", "daemon"])
    args = parser.parse_args()
    for tool in ("mmdebstrap", "umoci"):
        if not shutil.which(tool):
            raise SystemExit(f"build-images: {tool} is missing (packaging/debian-image-build-packages.txt "
                             "lists it; scripts/setup.sh --tests installs it)")
    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)
    if args.only in (None, "router"):
        build_router(out, args)
    if args.only in (None, "daemon"):
        build_daemon(out, args)
    if args.only in (None, "sandbox"):
        if not args.base_cache or not args.base_modcache:
            raise SystemExit("build-images: the sandbox image needs --base-cache and --base-modcache")
        build_sandbox(out, args)


if __name__ == "__main__":
    main()
