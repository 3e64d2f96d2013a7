#!/usr/bin/env python3
"""Setup's Go step: prints the GOROOT of the Go toolchain kode-gopher builds with and runs its
sandboxes with, and installs the pinned toolchain first when there is none to use.

Which Go wins:
  1. a `go` on PATH that is Go 1.24 or newer (GOCACHEPROG needs 1.24); go-env.sh, which runs
     this, adds /usr/local/go/bin at the end of PATH first;
  2. otherwise the pinned toolchain (PINNED_GO below), installed once into
     <prefix>/<PINNED_GO>, where <prefix> is
       /usr/local/lib/kode-gopher                          when run as root: the daemon then maps
                                                           sandboxes to uid 65534, which must read
                                                           and run the read-only-mounted toolchain,
                                                           so not under /root;
       ${XDG_DATA_HOME:-~/.local/share}/kode-gopher        otherwise (shared by every checkout);
     or $KG_GO_PREFIX.

The pinned toolchain comes from the Go module proxy as the module golang.org/toolchain (the route
GOTOOLCHAIN takes): $GOPROXY's first URL, else https://proxy.golang.org. Its zip must match both
the h1 hash pinned below and the hash sum.golang.org publishes (read through the same proxy, the
tree head's signature and the record's inclusion proof verified; GOSUMDB=off skips this second
check), else nothing is installed and the download is deleted. A second run finds the stamp file
and does nothing. $KG_GO_DOWNLOAD_DIR keeps the zip there and reuses it (tests do); without it the
zip is downloaded into a temporary file and deleted after unpacking.

Messages go to stderr; stdout carries only the GOROOT. Exit status 1 on any failure.
"""

import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import go_module_checksum  # noqa: E402

PINNED_GO = "go1.26.8"
# The zip hashes sum.golang.org published for golang.org/toolchain v0.0.1-go1.26.8.linux-*.
PINNED_H1 = {
    "linux-amd64": "h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM=",
    "linux-arm64": "h1:sYL/O6MqS68ML0kjsQ36WoYIpJqkw60TxizWUYUKQMc=",
}
MINIMUM_MINOR = 24  # Go 1.24: GOCACHEPROG
MODULE = "golang.org/toolchain"
DEFAULT_PROXY = "https://proxy.golang.org"
STAMP = ".kode-gopher-toolchain"  # in the installed GOROOT: "<module>@<version> <h1>\n"


class SetupError(Exception):
    """A failure with a message that says what to do."""


def log(message):
    print(f"setup: {message}", file=sys.stderr, flush=True)


def go_env(go_binary):
    """(GOVERSION, GOROOT) as the go binary reports them, or None when it does not run."""
    env = dict(os.environ, GOTOOLCHAIN="local")  # report this binary, never a switched-to one
    try:
        result = subprocess.run([go_binary, "env", "GOVERSION", "GOROOT"], env=env,
                                capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return None
    lines = result.stdout.splitlines()
    if result.returncode != 0 or len(lines) != 2:
        return None
    return lines[0], lines[1]


def new_enough(go_version):
    match = re.search(r"go1\.(\d+)", go_version)
    return match is not None and int(match.group(1)) >= MINIMUM_MINOR


def default_prefix():
    if os.geteuid() == 0:
        return "/usr/local/lib/kode-gopher"
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return os.path.join(data_home, "kode-gopher")


def module_proxy():
    """The first URL entry of $GOPROXY (entries are separated by ',' or '|'), else the default."""
    setting = os.environ.get("GOPROXY", "")
    for entry in re.split(r"[,|]", setting):
        entry = entry.strip()
        if entry == "off":
            raise SetupError("GOPROXY=off forbids downloading the Go toolchain; set GOPROXY to a Go "
                             f"module proxy (e.g. {DEFAULT_PROXY}) or put Go 1.24+ on PATH")
        if entry.startswith(("https://", "http://", "file://")):
            return entry.rstrip("/")
    return DEFAULT_PROXY


def platform_name():
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    name = f"{platform.system().lower()}-{arch}"
    if name not in PINNED_H1:
        raise SetupError(f"no pinned Go toolchain for {platform.system()} {platform.machine()}; "
                         f"install Go 1.{MINIMUM_MINOR} or newer (https://go.dev/dl), put it on PATH "
                         "and retry")
    return name


def open_url(url):
    try:
        response = urllib.request.urlopen(url, timeout=60)
    except urllib.error.HTTPError as error:
        reason = f"HTTP {error.code} {error.reason}"
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
    else:
        return response
    raise SetupError(f"cannot download {url}: {reason}. Check the network, or set GOPROXY to a "
                     "Go module proxy that can be reached (its first URL entry is used)")


def fetch(url):
    with open_url(url) as response:
        return response.read()


def download(url, destination):
    log(f"downloading {url}")
    partial = destination + ".part"
    try:
        with open_url(url) as response, open(partial, "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
    except OSError as error:
        if os.path.exists(partial):
            os.unlink(partial)
        raise SetupError(f"downloading {url} into {partial} failed: {error}. Retry, or set GOPROXY "
                         "to another Go module proxy") from None
    os.replace(partial, destination)


def logged_h1(proxy, version):
    """The zip's h1 hash as sum.golang.org publishes it, verified (see go_module_checksum)."""
    sumdb = f"{proxy}/sumdb/sum.golang.org"
    answer = fetch(f"{sumdb}/lookup/{MODULE}@{version}")
    try:
        record = go_module_checksum.verify_lookup(answer, lambda tile: fetch(f"{sumdb}/{tile}"))
        return go_module_checksum.h1_from_record(record, MODULE, version)
    except go_module_checksum.ChecksumError as error:
        raise SetupError(f"sum.golang.org's answer for {MODULE}@{version}, read through {proxy}, "
                         f"does not verify: {error}. Nothing was installed") from None


def unpack(zip_path, prefix_in_zip, destination):
    """Unpacks the files under prefix_in_zip into destination, world-readable (the sandbox user,
    uid 65534 under a root daemon, must read it) and with bin/ and pkg/tool/ executable (Python's
    zipfile drops the modes the zip carries)."""
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            if not info.filename.startswith(prefix_in_zip):
                raise SetupError(f"{zip_path}: {info.filename} is outside {prefix_in_zip}")
            relative = info.filename[len(prefix_in_zip):]
            parts = relative.split("/")
            if not relative or relative.startswith("/") or ".." in parts or "" in parts[:-1]:
                raise SetupError(f"{zip_path}: unsafe path {info.filename}")
            if relative.endswith("/"):
                continue
            target = os.path.join(destination, *parts)
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            with archive.open(info) as member, open(target, "wb") as out:
                shutil.copyfileobj(member, out, 1 << 20)
            executable = (info.external_attr >> 16) & 0o111 or parts[0] == "bin" or \
                parts[:2] == ["pkg", "tool"]
            os.chmod(target, 0o755 if executable else 0o644)
    for directory, _, _ in os.walk(destination):
        os.chmod(directory, 0o755)  # makedirs' mode is masked by the umask


def install_pinned(prefix, download_dir):
    """Installs PINNED_GO into prefix/PINNED_GO unless it is there already; returns its GOROOT."""
    name = platform_name()
    version = f"v0.0.1-{PINNED_GO}.{name}"
    pinned_h1 = PINNED_H1[name]
    root = os.path.join(prefix, PINNED_GO)
    stamp = f"{MODULE}@{version} {pinned_h1}\n"

    def installed():
        try:
            with open(os.path.join(root, STAMP)) as f:
                if f.read() != stamp:
                    return False
        except OSError:
            return False
        reported = go_env(os.path.join(root, "bin", "go"))
        return reported is not None and reported[0] == PINNED_GO

    if installed():
        return root

    proxy = module_proxy()
    if os.environ.get("GOSUMDB") == "off":
        log("GOSUMDB=off: checking the Go toolchain against the pinned hash only")
    else:
        logged = logged_h1(proxy, version)
        if logged != pinned_h1:
            raise SetupError(f"sum.golang.org lists {MODULE}@{version} as {logged}, but "
                             f"scripts/go_toolchain.py pins {pinned_h1}; not installing")

    os.makedirs(prefix, mode=0o755, exist_ok=True)
    if download_dir:
        os.makedirs(download_dir, exist_ok=True)
        zip_path = os.path.join(download_dir, f"toolchain@{version}.zip")
    else:
        zip_path = tempfile.mkstemp(prefix=".download-", suffix=".zip", dir=prefix)[1]
        os.unlink(zip_path)
    url = f"{proxy}/{MODULE}/@v/{version}.zip"
    staging = tempfile.mkdtemp(prefix=f".{PINNED_GO}.partial-", dir=prefix)
    try:
        if not os.path.exists(zip_path):
            download(url, zip_path)
        try:
            actual = go_module_checksum.zip_h1(zip_path)
        except (zipfile.BadZipFile, go_module_checksum.ChecksumError) as error:
            actual = f"unreadable ({error})"
        if actual != pinned_h1:
            os.unlink(zip_path)
            raise SetupError(f"checksum mismatch: {url} (saved as {zip_path}) has {actual}, but "
                             f"{MODULE}@{version} is {pinned_h1}. Refused it and deleted the "
                             "download; nothing was installed. Retry, or set GOPROXY to another "
                             "Go module proxy")
        unpack(zip_path, f"{MODULE}@{version}/", staging)
        reported = go_env(os.path.join(staging, "bin", "go"))
        if reported is None or reported[0] != PINNED_GO:
            raise SetupError(f"the unpacked toolchain in {staging} does not run as {PINNED_GO} "
                             f"(it reports {reported})")
        with open(os.path.join(staging, STAMP), "w") as f:
            f.write(stamp)
        os.chmod(os.path.join(staging, STAMP), 0o644)
        if os.path.lexists(root):  # a broken or interrupted earlier install
            shutil.rmtree(root)
        os.rename(staging, root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if not download_dir and os.path.exists(zip_path):
            os.unlink(zip_path)
    log(f"installed {PINNED_GO} in {root} (verified {pinned_h1})")
    return root


def main():
    go = shutil.which("go")
    reported = go_env(go) if go else None
    if reported and new_enough(reported[0]):
        print(reported[1])
        return 0
    if reported:
        log(f"{go} is {reported[0]}, older than Go 1.{MINIMUM_MINOR}; using the pinned {PINNED_GO}")
    prefix = os.environ.get("KG_GO_PREFIX") or default_prefix()
    os.umask(0o022)  # whatever this creates must be readable by the sandbox user
    try:
        print(install_pinned(prefix, os.environ.get("KG_GO_DOWNLOAD_DIR")))
    except SetupError as error:
        log(str(error))
        return 1
    except OSError as error:
        log(f"cannot install {PINNED_GO} into {prefix}: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
