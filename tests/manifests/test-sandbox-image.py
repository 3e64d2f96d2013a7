#!/usr/bin/env python3
"""Checks sandbox/Dockerfile and sandbox/prewarm.sh as far as a machine without a container
engine can (the image itself is not built here):

  context     every COPY from the build context names a file that exists and that
              .dockerignore does not leave out
  meson       the builder stage's `meson setup` options configure this checkout, and every
              /build/... path the final stage copies is the output of a meson target
  build-packages  the builder stage installs packaging/debian-build-packages.txt (the list
              scripts/setup.sh installs too), and every library a meson.build outside tests/
              asks for with dependency() comes from a package on that list
  libraries   each shared library kode-gopher-sandbox needs ($KG_SANDBOX_SERVER, a built binary)
              comes from a Debian package the final stage installs (or debian:12-slim has)
  environment the final stage's ENV is exactly the environment a local sandbox gives commands
              (daemon/sandbox/local/local_sandbox_layout.cpp, layered cache), and the prewarm stage's
              `env -i` the one of the daemon's prewarm sandbox (writable base cache), with the
              image's GOROOT for the host's
  entrypoint  the server arguments are a local sandbox's, with a TCP listener on :8888
  prewarm     prewarm.sh parses (sh -n, dash -n), builds with compiled-go's kBuildFlags and
              the daemon runs it (kPrewarmCompileCommand), and its digest equals the daemon's lockfile digest
              (computed here the same way as BaseCache::lockfile_digest)
  download    (with $KG_BASE_MODCACHE) `prewarm.sh download` for real, offline from that module
              cache as a file:// proxy: it fetches exactly the modules the daemon's prewarm did
  compile     (with $KG_BASE_CACHE and root, for an overlay mount) `prewarm.sh compile` for real
              over a copy-on-write view of the daemon's prewarmed cache: every package it
              compiles is already there, i.e. it computes the daemon's cache keys
  layout      (with $KG_SANDBOX_SERVER in a build dir that has the cacheprog and the Yaegi
              runners, $KG_BASE_CACHE, $KG_BASE_MODCACHE and bubblewrap) the final stage's file
              layout assembled with bwrap from the build, the toolchain and those caches: its
              ENTRYPOINT (on a loopback port), ENV, USER and WORKDIR, a read-only root and the
              template's writable folders; the server answers, runs as uid 1000, builds a
              program importing a curated package from the prewarmed base (only the program's
              own package compiles) and runs it, and the Yaegi runners interpret it

download, compile and layout are skipped, saying so, without those variables. Prints one line per check
and 'N passed, N failed[, N skipped]'; exit 1 on any failure.
"""

import glob
import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import socket
import tempfile
import time
import urllib.request
import fnmatch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "packaging", "images"))
from dockerfile_layout import (DOCKERFILE, PREWARM, copy_sources, env_of,  # noqa: E402
                               instructions, layout_sources as image_sources, listed_packages,
                               read, stage_package_lists)
LAYOUT_HPP = os.path.join(REPO, "daemon", "sandbox", "sandbox_paths.hpp")
LAYOUT_CPP = os.path.join(REPO, "daemon", "sandbox", "local", "local_sandbox_layout.cpp")
LOCKFILE = os.path.join(REPO, "sandbox", "lockfile")


def layout_sources(build_dir, scratch):
    return image_sources(build_dir, scratch, os.environ["KG_BASE_CACHE"],
                         os.environ["KG_BASE_MODCACHE"])
IMAGE_GOROOT = "/opt/kode-gopher/go"
# Packages debian:12-slim already has (apt itself needs them).
IN_DEBIAN_SLIM = {"libc6", "libgcc-s1", "libstdc++6"}


class Skip(Exception):
    pass


def dockerignore_patterns():
    patterns = []
    for line in read(os.path.join(REPO, ".dockerignore")).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            patterns.append(line.strip("/").replace("**/", ""))
    return patterns


def check_context():
    patterns = dockerignore_patterns()
    for stage, word, rest in instructions():
        if word != "COPY":
            continue
        source_stage, sources, _ = copy_sources(rest)
        if source_stage:
            continue
        for source in sources:
            if source == ".":
                continue
            assert os.path.exists(os.path.join(REPO, source)), \
                f"COPY in stage {stage}: {source} does not exist in the checkout"
            for part in [source] + source.split("/"):
                for pattern in patterns:
                    assert not fnmatch.fnmatch(part, pattern), \
                        f"COPY in stage {stage}: {source} is left out by .dockerignore ({pattern})"


def check_meson():
    setup = next(rest for _, word, rest in instructions()
                 if word == "RUN" and rest.startswith("meson setup"))
    words = shlex.split(setup.split("&&")[0])
    options = [w for w in words[2:] if w.startswith("-")]
    go_root = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True,
                             check=True, env=dict(os.environ, GOTOOLCHAIN="local")).stdout.strip()
    options = [f"-Dgo_root={go_root}" if o.startswith("-Dgo_root=") else o for o in options]
    with tempfile.TemporaryDirectory() as build:
        result = subprocess.run(["meson", "setup", build, REPO] + options,
                                capture_output=True, text=True)
        assert result.returncode == 0, \
            f"meson setup with the Dockerfile's options {options} fails:\n{result.stdout[-2000:]}"
        targets = json.loads(subprocess.run(["meson", "introspect", build, "--targets"],
                                            capture_output=True, text=True, check=True).stdout)
        outputs = {os.path.relpath(f, build) for t in targets for f in t["filename"]}
    ninja = next(rest for _, word, rest in instructions() if word == "RUN" and "ninja -C" in rest)
    built = set(shlex.split(ninja.split("ninja -C /build", 1)[1]))
    assert built <= outputs, f"ninja targets that meson does not define: {built - outputs}"
    for stage, word, rest in instructions():
        if word == "COPY":
            source_stage, sources, _ = copy_sources(rest)
            if source_stage == "builder":
                for source in sources:
                    relative = os.path.relpath(source, "/build")
                    assert relative in built, \
                        f"the final stage copies {source}, which the builder's ninja does not build"


BUILD_PACKAGES = os.path.join(REPO, "packaging", "debian-build-packages.txt")


def listed_build_packages():
    return {line.split("#", 1)[0].strip() for line in read(BUILD_PACKAGES).splitlines()} - {""}


def package_of_dependency(name):
    """The Debian package whose pkg-config file or CMake config defines dependency(name)."""
    pc_dir = subprocess.run(["pkg-config", "--variable=pcfiledir", name], capture_output=True,
                            text=True)
    candidates = [os.path.join(pc_dir.stdout.strip(), name + ".pc")] if pc_dir.returncode == 0 else []
    candidates += glob.glob(f"/usr/lib/*/cmake/{name}/*Config*.cmake") + \
        glob.glob(f"/usr/share/cmake/{name}/*Config*.cmake") + \
        glob.glob(f"/usr/lib/cmake/{name}/*Config*.cmake")
    for candidate in candidates:
        owner = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if owner.returncode == 0:
            return owner.stdout.split(":", 1)[0]
    raise AssertionError(f"dependency('{name}'): no Debian package on this machine provides it")


def check_build_packages():
    builder = [(word, rest) for stage, word, rest in instructions() if stage == "builder"]
    assert ("COPY", "packaging/debian-build-packages.txt /src/packaging/") in builder, \
        "the builder stage does not copy packaging/debian-build-packages.txt"
    assert any(word == "RUN" and "apt-get install" in rest and "debian-build-packages.txt" in rest
               for word, rest in builder), \
        "the builder stage does not install packaging/debian-build-packages.txt"
    setup = read(os.path.join(REPO, "scripts", "setup.sh"))
    assert "packaging/debian-build-packages.txt" in setup, \
        "scripts/setup.sh does not install packaging/debian-build-packages.txt"
    listed = listed_build_packages()
    asked = set()
    for meson in pathlib.Path(REPO).rglob("meson.build"):
        relative = meson.relative_to(REPO).parts
        if relative[0] in ("tests", "subprojects") or relative[0].startswith("build"):
            continue
        code = "\n".join(line.split("#", 1)[0] for line in meson.read_text().splitlines())
        for name in re.findall(r"\bdependency\(\s*'([^']+)'", code):
            if "get_option('tests'" in code.split(f"dependency('{name}'", 1)[1].split(")", 1)[0]:
                continue
            asked.add(name)
    assert {"Poco", "yaml-cpp", "sqlite3"} <= asked, f"found only dependencies {sorted(asked)}"
    for name in sorted(asked - {"threads"}):
        package = package_of_dependency(name)
        assert package in listed, (f"dependency('{name}') comes from {package}, which "
                                   f"packaging/debian-build-packages.txt does not list")


def check_image_packages():
    """The final stage and packaging/images/build-images.py install the sandbox image's packages
    from one list, and setup.sh installs the tools the image build needs (their own list)."""
    import importlib.util
    listed = os.path.join(REPO, "packaging", "debian-sandbox-image-packages.txt")
    assert stage_package_lists(None) == [listed], \
        f"the final stage installs from {stage_package_lists(None)}, not only {listed}"
    inline = final_stage_packages() - set(listed_packages(listed))
    assert not inline, f"the final stage names packages outside the list: {sorted(inline)}"
    spec = importlib.util.spec_from_file_location(
        "build_images", os.path.join(REPO, "packaging", "images", "build-images.py"))
    build_images = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_images)
    assert os.path.samefile(build_images.SANDBOX_PACKAGES, listed), \
        f"build-images.py installs {build_images.SANDBOX_PACKAGES}, the Dockerfile {listed}"
    image_tools = os.path.join(REPO, "packaging", "debian-image-build-packages.txt")
    assert {"mmdebstrap", "umoci"} <= set(listed_packages(image_tools)), \
        f"{image_tools} lacks mmdebstrap or umoci, which build the images"
    assert "packaging/debian-image-build-packages.txt" in read(os.path.join(REPO, "scripts", "setup.sh")), \
        "scripts/setup.sh does not install packaging/debian-image-build-packages.txt"


def final_stage_packages(name=None):
    """The packages stage `name` (None: the unnamed final stage) installs with apt-get: named on
    the line, or from a packaging/*.txt list it reads."""
    packages = set()
    for stage, word, rest in instructions():
        if stage == name and word == "RUN" and "apt-get install" in rest:
            install = re.sub(r"\$\(sed [^)]*\)", "", rest.split("apt-get install", 1)[1])
            packages |= {w for w in shlex.split(install.split("&&")[0]) if not w.startswith("-")}
    for path in stage_package_lists(name):
        packages |= set(listed_packages(path))
    return packages


def package_of(library_path):
    real = os.path.realpath(library_path)
    for candidate in (library_path, real, real.removeprefix("/usr")):
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":", 1)[0]
    raise AssertionError(f"no Debian package owns {library_path}")


def needed_packages(binary):
    """{library: package} for every shared library `binary` names (readelf NEEDED)."""
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)
    resolved = dict(re.findall(r"^\s*(\S+) => (/\S+)", subprocess.run(
        ["ldd", binary], capture_output=True, text=True, check=True).stdout, re.MULTILINE))
    assert needed, f"readelf lists no shared library for {binary}"
    # The dynamic loader is libc6's; ldd shows it by its absolute path, not "name => path".
    needed = [library for library in needed if not library.startswith("ld-linux")]
    for library in needed:
        assert library in resolved, f"ldd cannot resolve {library} of {binary}"
    return {library: package_of(resolved[library]) for library in needed}


def check_daemon_libraries():
    """The daemon stage installs every package the daemon, the CLI and the plugins load from."""
    binaries = [os.environ.get("KG_DAEMON", ""), os.environ.get("KG_CLI", "")]
    for variable in ("KG_PLUGIN_DIR", "KG_CREDS_ADC_PLUGIN_DIR", "KG_CREDS_WORKLOAD_PLUGIN_DIR"):
        for folder in filter(None, os.environ.get(variable, "").split(":")):
            binaries += [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".so")]
    binaries = [b for b in binaries if b]
    if not binaries:
        raise Skip("KG_DAEMON, KG_CLI and KG_PLUGIN_DIR are not set")
    installed = final_stage_packages("daemon") | IN_DEBIAN_SLIM
    for binary in binaries:
        for library, package in needed_packages(binary).items():
            assert package in installed, \
                f"{binary} needs {library} from package {package}, which the daemon stage does " \
                f"not install (it installs {sorted(final_stage_packages('daemon'))})"


def check_libraries():
    server = os.environ.get("KG_SANDBOX_SERVER") or \
        os.path.join(REPO, "build", "sandbox", "server", "kode-gopher-sandbox")
    assert os.access(server, os.X_OK), \
        f"no built kode-gopher-sandbox at {server}; build it or set KG_SANDBOX_SERVER"
    dynamic = subprocess.run(["readelf", "-d", server], capture_output=True, text=True,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)
    resolved = dict(re.findall(r"^\s*(\S+) => (/\S+)", subprocess.run(
        ["ldd", server], capture_output=True, text=True, check=True).stdout, re.MULTILINE))
    installed = final_stage_packages() | IN_DEBIAN_SLIM
    assert needed, f"readelf lists no shared library for {server}"
    for library in needed:
        assert library in resolved, f"ldd cannot resolve {library} of {server}"
        package = package_of(resolved[library])
        assert package in installed, \
            f"{server} needs {library} from package {package}, which the final stage does not " \
            f"install (it installs {sorted(final_stage_packages())})"


# --- the local sandbox's environment, read from the daemon's source ----------------------------

def layout_constants():
    return dict(re.findall(r'inline constexpr const char\* (kSandbox\w+) = "([^"]*)";',
                           read(LAYOUT_HPP)))


def evaluate(expression, names):
    """A C++ string expression of literals, names and std::string(...) joined by +."""
    value = ""
    for term in re.split(r"\s*\+\s*", expression.strip()):
        term = re.sub(r"^std::string\((.*)\)$", r"\1", term.strip())
        if term.startswith('"'):
            value += json.loads(term)
        elif term in names:
            value += names[term]
        else:
            raise AssertionError(f"cannot evaluate {term!r} in {expression!r}")
    return value


def local_sandbox_env(writable):
    """The environment bwrap_arguments() gives a sandbox, with the image's GOROOT."""
    source = read(LAYOUT_CPP)
    body = source[source.index("args.insert(args.end(), {\"--clearenv\""):]
    body = body[:body.index("args.insert(args.end(), {kSandboxServerPath")]
    names = dict(layout_constants(), home=layout_constants()["kSandboxHome"])
    names["layout.go_root"] = IMAGE_GOROOT
    branch = re.search(r"if \(access == BaseCacheAccess::writable\) \{(.*?)\} else \{(.*?)\}",
                       body, re.DOTALL)
    chosen = branch.group(1) if writable else branch.group(2)
    common = body[:branch.start()] + body[branch.end():]
    env = {}
    for text in (common, chosen):
        for name, expression in re.findall(r'add_env\(args, "(\w+)",\s*(.*?)\);', text,
                                           re.DOTALL):
            env[name] = evaluate(expression, names)
    assert {"HOME", "PATH", "GOCACHE", "GOFLAGS"} <= set(env), \
        f"read too little of {LAYOUT_CPP}: {env}"
    return env


def check_environment():
    final = {}
    for stage, word, rest in instructions():
        if stage is None and word == "ENV":
            final.update(env_of(rest))
    want = local_sandbox_env(writable=False)
    assert final == want, "the final stage's ENV differs from a local sandbox's: " + \
        ", ".join(f"{k}: image {final.get(k)!r}, local {want.get(k)!r}"
                  for k in sorted(set(final) | set(want)) if final.get(k) != want.get(k))
    compile_step = next(rest for stage, word, rest in instructions()
                        if stage == "prewarm" and "prewarm.sh compile" in rest)
    words = shlex.split(compile_step.split("env -i", 1)[1])
    prewarm_env = dict(w.split("=", 1) for w in words[:words.index("sh")])
    want = local_sandbox_env(writable=True)
    assert prewarm_env == want, "the prewarm stage's environment differs from the daemon's " \
        "prewarm sandbox: " + ", ".join(
            f"{k}: image {prewarm_env.get(k)!r}, local {want.get(k)!r}"
            for k in sorted(set(prewarm_env) | set(want)) if prewarm_env.get(k) != want.get(k))


def check_entrypoint():
    entrypoint = json.loads(next(rest for stage, word, rest in instructions()
                                 if stage is None and word == "ENTRYPOINT"))
    source = read(LAYOUT_CPP)
    call = re.search(r"args\.insert\(args\.end\(\), \{(kSandboxServerPath, .*?)\}\);", source,
                     re.DOTALL).group(1)
    names = dict(layout_constants(), home=layout_constants()["kSandboxHome"])
    local = []
    for term in re.split(r",\s*", call):
        local.append(None if "descriptors.listener" in term else evaluate(term, names))
    want = [("tcp:0.0.0.0:8888" if word is None else word) for word in local]
    assert entrypoint == want, f"ENTRYPOINT {entrypoint}\n  local sandbox server {want}"
    assert any(stage is None and word == "USER" and rest.startswith("1000")
               for stage, word, rest in instructions()), "the final stage does not run as uid 1000"
    assert any(stage is None and word == "WORKDIR" and rest == "/app"
               for stage, word, rest in instructions()), "the final stage's WORKDIR is not /app"


# --- prewarm.sh ------------------------------------------------------------------------------------

def check_prewarm_script():
    for shell in ("sh", "dash"):
        if shutil.which(shell):
            result = subprocess.run([shell, "-n", PREWARM], capture_output=True, text=True)
            assert result.returncode == 0, f"{shell} -n {PREWARM}: {result.stderr}"
    script = read(PREWARM)
    build_flags = re.search(r'kBuildFlags = "(.*?)";', read(os.path.join(
        REPO, "plugins", "compiled-go", "compiled_go_plugin.cpp"))).group(1)
    assert f"go build {build_flags} -o /dev/null ." in script, \
        f"prewarm.sh does not build the lockfile with compiled-go's flags {build_flags}"
    prewarm_command = "".join(json.loads(part) for part in re.findall(
        r'"(?:[^"\\]|\\.)*"', re.search(r"kPrewarmCompileCommand =(.*?);", read(os.path.join(
            REPO, "daemon", "gocache", "base_cache.cpp")), re.DOTALL).group(1)))
    # The daemon compiles with this script's compile step, as the image does.
    assert "/opt/kode-gopher/lockfile/prewarm.sh compile /opt/kode-gopher/lockfile" in \
        prewarm_command, f"the daemon's prewarm does not run prewarm.sh compile: {prewarm_command}"
    digest = subprocess.run(["sh", PREWARM, "digest", LOCKFILE], capture_output=True, text=True,
                            check=True).stdout.strip()
    sha = hashlib.sha256()
    for name in ("go.mod", "go.sum", "curated.go"):
        with open(os.path.join(LOCKFILE, name), "rb") as f:
            sha.update(name.encode() + b"\0" + f.read() + b"\0")
    assert digest == sha.hexdigest(), f"prewarm.sh digest {digest}, daemon's {sha.hexdigest()}"
    result = subprocess.run(["sh", PREWARM, "compile"], capture_output=True, text=True)
    assert result.returncode == 2 and "usage" in result.stderr, "a usage error is not exit 2"


def module_zips(modcache):
    root = os.path.join(modcache, "cache", "download")
    return sorted(os.path.relpath(p, root) for p in glob.glob(f"{root}/**/*.zip", recursive=True))


def check_download():
    base = os.environ.get("KG_BASE_MODCACHE")
    if not base or not os.path.isdir(os.path.join(base, "cache", "download")):
        raise Skip("set KG_BASE_MODCACHE to a prewarmed module cache (tests/meson.build's)")
    with tempfile.TemporaryDirectory() as scratch:
        modcache, work = os.path.join(scratch, "mod"), os.path.join(scratch, "work")
        env = dict(os.environ, GOPROXY=f"file://{base}/cache/download", GOSUMDB="off",
                   HOME=scratch)
        result = subprocess.run(["sh", PREWARM, "download", LOCKFILE, modcache, work], env=env,
                                capture_output=True, text=True)
        try:
            assert result.returncode == 0, f"prewarm.sh download failed:\n{result.stderr[-3000:]}"
            got, want = module_zips(modcache), module_zips(base)
            assert got == want, f"downloaded {len(got)} modules, the daemon's prewarm has " \
                f"{len(want)}: differ in {sorted(set(got) ^ set(want))[:10]}"
        finally:
            subprocess.run(["chmod", "-R", "u+w", scratch])


def fastbuild_binary():
    """kode-gopher-fastbuild in the build dir that holds $KG_SANDBOX_SERVER."""
    server = os.environ.get("KG_SANDBOX_SERVER", "")
    build_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(server))))
    return os.path.join(build_dir, "sandbox", "fastbuild", "kode-gopher-fastbuild")


def check_compile():
    base, modcache = os.environ.get("KG_BASE_CACHE"), os.environ.get("KG_BASE_MODCACHE")
    if not base or not modcache or not os.path.isdir(base):
        raise Skip("set KG_BASE_CACHE and KG_BASE_MODCACHE to a prewarmed cache")
    if os.geteuid() != 0:
        raise Skip("needs root for an overlay mount over the prewarmed cache")
    with tempfile.TemporaryDirectory() as scratch:
        upper, work, merged, app, home = (os.path.join(scratch, d) for d in
                                          ("upper", "work", "merged", "app", "home"))
        for d in (upper, work, merged, app, home):
            os.mkdir(d)
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={base},upperdir={upper},workdir={work}", merged], check=True)
        try:
            go_root = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True,
                                     check=True).stdout.strip()
            env = {"HOME": home, "TMPDIR": scratch, "PATH": f"{go_root}/bin:/usr/bin:/bin",
                   "GOCACHE": merged, "GOMODCACHE": modcache, "GOFLAGS": "-mod=mod",
                   "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off",
                   "CGO_ENABLED": "0", "KG_FASTBUILD": fastbuild_binary()}
            result = subprocess.run(["sh", PREWARM, "compile", LOCKFILE], cwd=app, env=env,
                                    capture_output=True, text=True)
            assert result.returncode == 0, f"prewarm.sh compile failed:\n{result.stderr[-3000:]}"
        finally:
            subprocess.run(["umount", merged], check=True)
        # Entries the build added: only the module index (keyed on the module cache's path,
        # which differs from the sandboxes'), never a compiled package.
        added = []
        for directory, _, files in os.walk(upper):
            for name in files:
                relative = os.path.relpath(os.path.join(directory, name), upper)
                if name.endswith("-d") and not os.path.exists(os.path.join(base, relative)):
                    with open(os.path.join(upper, relative), "rb") as f:
                        if not f.read(12).startswith(b"go index"):
                            added.append(relative)
        assert not added, f"prewarm.sh compile built {len(added)} outputs the daemon's " \
            f"prewarmed cache lacks (its cache keys differ), e.g. {added[:5]}"


# --- the image's layout, run ----------------------------------------------------------------------

# A program importing a curated package: with a working base cache only its own package compiles.
CURATED_PROGRAM = """package main

import (
	"fmt"

	"cloud.google.com/go/storage"
)

func main() { fmt.Println("scope", storage.ScopeReadOnly) }
"""


def http(port, method, path, body=None, timeout=600):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def pod_command(server, scratch, listen):
    """The command that runs the image's final stage as a pod would, from this machine's build:
    bubblewrap assembles the stage's file layout (the build, the toolchain, the prewarmed caches)
    with its ENTRYPOINT (listening on `listen` instead of tcp:0.0.0.0:8888), ENV, USER and
    WORKDIR, a read-only root and the SandboxTemplate's writable folders. The network is the
    caller's (a pod's address here is a loopback one)."""
    build_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(server))))
    image_env = {}
    for stage, word, rest in instructions():
        if stage is None and word == "ENV":
            image_env.update(env_of(rest))
    workdir = next(rest for stage, word, rest in instructions()
                   if stage is None and word == "WORKDIR")
    user = next(rest for stage, word, rest in instructions() if stage is None and word == "USER")
    entrypoint = json.loads(next(rest for stage, word, rest in instructions()
                                 if stage is None and word == "ENTRYPOINT"))
    entrypoint[entrypoint.index("tcp:0.0.0.0:8888")] = listen
    uid, gid = user.split(":")
    args = ["bwrap", "--unshare-user", "--uid", uid, "--gid", gid, "--unshare-pid",
            "--as-pid-1", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
            "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for link in ("/bin", "/sbin", "/lib", "/lib64"):
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
    for host, target in layout_sources(build_dir, scratch):
        args += ["--ro-bind", host, target]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm"]
    # The SandboxTemplate's emptyDir volumes; everything else is read-only.
    for folder in ("/app", "/tmp", "/home/gopher", "/persist"):
        args += ["--perms", "0755", "--tmpfs", folder]
    args += ["--remount-ro", "/", "--clearenv", "--chdir", workdir]
    for name, value in image_env.items():
        args += ["--setenv", name, value]
    return args + entrypoint, uid


def check_layout():
    server = os.environ.get("KG_SANDBOX_SERVER")
    if not server or not os.environ.get("KG_BASE_CACHE") or not os.environ.get("KG_BASE_MODCACHE"):
        raise Skip("set KG_SANDBOX_SERVER (in a build dir with the Yaegi runners and the "
                   "cacheprog), KG_BASE_CACHE and KG_BASE_MODCACHE")
    if not shutil.which("bwrap"):
        raise Skip("needs bubblewrap (scripts/setup.sh installs it)")
    with socket.socket() as probe:  # a free loopback port instead of the pod's 0.0.0.0:8888
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as scratch:
        command, uid = pod_command(server, scratch, f"tcp:127.0.0.1:{port}")
        server_process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT)
        try:
            for _ in range(100):
                try:
                    assert http(port, "GET", "/", timeout=2).get("status") == "ok"
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                raise AssertionError("the image's server did not answer GET / in 10 s")
            who = http(port, "POST", "/execute", {"command": "id -u; go env GOCACHEPROG"})
            assert who["exit_code"] == 0 and who["stdout"].split("\n", 1)[0] == uid, who
            program = json.dumps(CURATED_PROGRAM)
            build = ("printf '%s' " + shlex.quote(json.loads(program)) + " > main.go && "
                     "cp /opt/kode-gopher/lockfile/go.mod /opt/kode-gopher/lockfile/go.sum . && "
                     "go build -trimpath -buildvcs=false -ldflags='-s -w' -o /home/gopher/prog . "
                     "&& /home/gopher/prog && "
                     "for f in $(find /home/gopher/.cache/kode-gopher-upper -name '*-d'); do "
                     "head -c 8 $f | grep -q 'go index' || echo $f; done | wc -l")
            started = time.monotonic()
            result = http(port, "POST", "/execute", {"command": build})
            seconds = time.monotonic() - started
            assert result["exit_code"] == 0, f"the build in the image's layout failed: {result}"
            lines = result["stdout"].split()
            assert lines[:2] == ["scope", "https://www.googleapis.com/auth/devstorage.read_only"], \
                result
            # Outputs other than the module index (keyed on paths) in the private layer: the
            # program's own package and its link; misses would be hundreds of packages.
            print("  compiled outputs in the private layer:", lines[-1], f"({seconds:.1f} s)")
            assert int(lines[-1]) < 10, \
                f"{lines[-1]} compiled outputs in the private cache layer after {seconds:.0f} s: " \
                "the prewarmed base was not used"
            # The same program under the Yaegi runner, which execs kode-gopher-yaegi-cloud beside
            # it for the curated import.
            interpreted = http(port, "POST", "/execute", {
                "command": "KG_YAEGI_TOKEN=0123abcd /opt/kode-gopher/bin/kode-gopher-yaegi /app"})
            assert interpreted["exit_code"] == 0 and \
                interpreted["stdout"].split()[:1] == ["scope"], \
                f"the Yaegi runner in the image's layout: {interpreted}"
            # And with compiled-go's fast path, from the data the prewarm put in the base cache.
            go_version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True,
                                        text=True, check=True).stdout.strip()
            digest = subprocess.run(["sh", PREWARM, "digest", LOCKFILE], capture_output=True,
                                    text=True, check=True).stdout.strip()
            fast = http(port, "POST", "/execute", {
                "command": "/opt/kode-gopher/bin/kode-gopher-fastbuild build -data "
                           "/opt/kode-gopher/gocache-base/kode-gopher-fastbuild.data -go "
                           f"{go_version} -lockfile-digest {digest} -o /home/gopher/fast . && "
                           "/home/gopher/fast"})
            assert fast["exit_code"] == 0 and fast["stdout"].split()[:1] == ["scope"], \
                f"the fast build path in the image's layout: {fast}"
        finally:
            server_process.kill()
            server_process.wait()


CHECKS = [("context", check_context), ("meson", check_meson),
          ("build-packages", check_build_packages), ("image-packages", check_image_packages),
          ("libraries", check_libraries),
          ("daemon-libraries", check_daemon_libraries),
          ("environment", check_environment), ("entrypoint", check_entrypoint),
          ("prewarm", check_prewarm_script), ("download", check_download),
          ("compile", check_compile), ("layout", check_layout)]


def main():
    if os.environ.get("GO"):
        os.environ["PATH"] = os.path.dirname(os.environ["GO"]) + os.pathsep + os.environ["PATH"]
    passed = failed = skipped = 0
    only = set(sys.argv[1:])
    for name, check in CHECKS:
        if only and name not in only:
            continue
        try:
            check()
        except Skip as reason:
            skipped += 1
            print(f"skip {name}: {reason}")
        except (AssertionError, subprocess.CalledProcessError, StopIteration) as error:
            failed += 1
            print(f"FAIL {name}: {error!r}" if not str(error) else f"FAIL {name}: {error}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
