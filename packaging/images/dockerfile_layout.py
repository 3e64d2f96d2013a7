"""sandbox/Dockerfile read as data, for what builds or checks the sandbox image without a container
engine: packaging/images/build-images.py (the OCI image) and tests/manifests/test-sandbox-image.py.
Both take the final stage's files, ENV, USER, WORKDIR, ENTRYPOINT and RUN steps from here, so the
image they make is the Dockerfile's and cannot drift from it."""

import json
import os
import re
import shlex
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCKERFILE = os.path.join(REPO, "sandbox", "Dockerfile")
PREWARM = os.path.join(REPO, "sandbox", "prewarm.sh")
LOCKFILE = os.path.join(REPO, "sandbox", "lockfile")


def read(path):
    with open(path) as f:
        return f.read()


def instructions(dockerfile=DOCKERFILE):
    """[(stage name or None, INSTRUCTION, rest)] with continuation lines joined."""
    text = re.sub(r"\\\n", " ", read(dockerfile))
    stage = None
    result = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "FROM":
            match = re.search(r"\bAS\s+(\S+)$", rest, re.IGNORECASE)
            stage = match.group(1) if match else None
        result.append((stage, word, rest.strip()))
    return result


def copy_sources(rest):
    words = shlex.split(rest)
    options = [w for w in words if w.startswith("--")]
    paths = [w for w in words if not w.startswith("--")]
    source_stage = next((o.split("=", 1)[1] for o in options if o.startswith("--from=")), None)
    return source_stage, paths[:-1], paths[-1]


def env_of(rest):
    """ENV a=b c="d e" -> dict."""
    return dict(word.split("=", 1) for word in shlex.split(rest))


def listed_packages(path):
    return [line.split("#", 1)[0].strip() for line in read(path).splitlines()
            if line.split("#", 1)[0].strip()]


def stage_package_lists(name=None):
    """The packaging/*.txt lists stage `name` (None: the final stage) installs with apt-get."""
    lists = []
    for stage, word, rest in instructions():
        if stage == name and word == "RUN" and "apt-get install" in rest:
            lists += [os.path.join(REPO, "packaging", m)
                      for m in re.findall(r"/packaging/([\w.-]+\.txt)", rest)]
    return lists


def final_config(name=None):
    """Stage `name`'s (None: the final stage's) image config: env (dict), user, workdir,
    entrypoint (list), exposed ports, and the shell commands of its RUN steps other than the
    apt-get one."""
    config = {"env": {}, "runs": [], "expose": []}
    for stage, word, rest in instructions():
        if stage != name:
            continue
        if word == "ENV":
            config["env"].update(env_of(rest))
        elif word == "USER":
            config["user"] = rest
        elif word == "WORKDIR":
            config["workdir"] = rest
        elif word == "ENTRYPOINT":
            config["entrypoint"] = json.loads(rest)
        elif word == "EXPOSE":
            config["expose"] += rest.split()
        elif word == "RUN" and "apt-get" not in rest:
            config["runs"].append(rest)
    return config


def go_root():
    return subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True,
                          check=True).stdout.strip()


def layout_sources(build_dir, scratch, base_cache, base_modcache):
    """[(path on this machine, path in the image)] for every file the final stage copies: the meson
    build's outputs, the Go toolchain, the prewarmed caches (`base_cache`, `base_modcache`: the
    daemon's, made by the same prewarm.sh steps the Dockerfile's prewarm stage runs), the lockfile
    and the image stamp (written into `scratch`)."""
    lockfile = os.path.join(scratch, "lockfile")
    os.makedirs(lockfile, exist_ok=True)
    for name in ("go.mod", "go.sum", "curated.go"):
        shutil.copy(os.path.join(LOCKFILE, name), lockfile)
    shutil.copy(PREWARM, lockfile)
    extra = os.path.join(scratch, "gomodcache-extra", "cache", "download")
    os.makedirs(extra, exist_ok=True)
    stamp = os.path.join(scratch, "kode-gopher-image")
    # What the Dockerfile's RUN writes: the toolchain's version and the lockfile's digest.
    go_version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True,
                                check=True).stdout.strip()
    digest = subprocess.run(["sh", PREWARM, "digest", LOCKFILE], capture_output=True, text=True,
                            check=True).stdout.strip()
    with open(stamp, "w") as f:
        f.write(f"{go_version}\nlockfile {digest}\n")
    prewarmed = {"/opt/kode-gopher/lockfile": lockfile,
                 "/opt/kode-gopher/gomodcache": base_modcache,
                 "/opt/kode-gopher/gocache-base": base_cache,
                 "/opt/kode-gopher/gomodcache-extra": os.path.dirname(os.path.dirname(extra)),
                 "/opt/kode-gopher/kode-gopher-image": stamp}
    root = go_root()
    binds = []
    for stage, word, rest in instructions():
        if stage is not None or word != "COPY":
            continue
        source_stage, sources, destination = copy_sources(rest)
        for source in sources:
            target = os.path.join(destination, os.path.basename(source)) \
                if destination.endswith("/") else destination
            if source_stage == "builder":
                host = os.path.join(build_dir, os.path.relpath(source, "/build"))
            elif source_stage == "toolchain":
                host = root
            else:
                host = prewarmed[source]
            assert os.path.exists(host), f"no {host} for the image's {target}"
            binds.append((host, target))
    return binds
