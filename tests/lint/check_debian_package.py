#!/usr/bin/env python3
"""The Debian package's sources agree with the rest of the tree (docs/install.md).

- debian/control's Build-Depends are exactly packaging/debian-build-packages.txt (the list
  scripts/setup.sh and sandbox/Dockerfile read) plus debhelper, so the package cannot drift from
  the build the tests run; the tests' and the image tools' lists share nothing with it;
- debian/changelog's version is meson.build's project version;
- the systemd socket unit listens where the daemon's default socket is, and the service starts
  the installed daemon.

Usage: check_debian_package.py SOURCE_ROOT
"""
import pathlib
import re
import sys


# Lists of packages that build nothing of the Debian package: the tests' and the image tools'
# (scripts/setup.sh --tests installs them; README's first command does not).
OTHER_LISTS = ("debian-test-packages.txt", "debian-image-build-packages.txt")


def package_list(root, name="debian-build-packages.txt"):
    names = set()
    for line in (root / "packaging" / name).read_text().splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.add(name)
    return names


def build_depends(root):
    control = (root / "debian" / "control").read_text()
    match = re.search(r"^Build-Depends:(.*?)(?=^\S|\Z)", control, re.S | re.M)
    if not match:
        sys.exit("debian/control has no Build-Depends")
    names = set()
    for item in match.group(1).split(","):
        item = re.sub(r"\(.*?\)", "", item.split("#", 1)[0]).strip()
        if item:
            names.add(item)
    return names


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    wanted = package_list(root) | {"debhelper-compat"}
    have = build_depends(root)
    if have != wanted:
        problems.append("debian/control Build-Depends differ from packaging/debian-build-packages.txt"
                        f" (+ debhelper-compat): missing {sorted(wanted - have)}, extra "
                        f"{sorted(have - wanted)}")
    for name in OTHER_LISTS:
        shared = package_list(root, name) & package_list(root)
        if shared:
            problems.append(f"packaging/{name} and debian-build-packages.txt both list {sorted(shared)}:"
                            " a package that builds kode-gopher belongs in the build list only")
    version = re.search(r"version:\s*'([^']+)'", (root / "meson.build").read_text()).group(1)
    changelog = (root / "debian" / "changelog").read_text().splitlines()[0]
    if f"({version})" not in changelog:
        problems.append(f"debian/changelog's first entry ({changelog}) is not version {version}")
    socket_unit = (root / "packaging" / "systemd" / "kode-gopher.socket").read_text()
    if "ListenStream=%t/kode-gopher/daemon.sock" not in socket_unit:
        problems.append("kode-gopher.socket does not listen on the daemon's default socket "
                        "($XDG_RUNTIME_DIR/kode-gopher/daemon.sock)")
    service = (root / "packaging" / "systemd" / "kode-gopher.service.in").read_text()
    if "ExecStart=@bindir@/kode-gopherd" not in service:
        problems.append("kode-gopher.service.in does not start @bindir@/kode-gopherd")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"debian/ agrees with packaging/ ({len(have)} build dependencies) and meson.build ({version})")


if __name__ == "__main__":
    main()
