#!/usr/bin/env bash
# Builds the Debian package from debian/ (docs/install.md), installs it, and runs examples through
# the installed daemon, started the way kode-gopher.socket starts it (socket activation, here by
# systemd-socket-activate, which speaks the same protocol): the host install, tested by the book.
# Run by scripts/test.sh after the test suites, whose prewarmed Go caches it reuses. Needs root
# (or sudo) to install the package.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! dpkg-query -W -f='${Status}' debhelper 2>/dev/null | grep -q "install ok installed"; then
  echo "test-package: installing debhelper" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq debhelper >/dev/null
fi

work=build/package
rm -rf "$work" && mkdir -p "$work/src"
# The source tree as a clean checkout has it (tracked and new files, nothing ignored).
git ls-files -z --cached --others --exclude-standard | tar -C . --null -T - -cf - | tar -C "$work/src" -xf -
echo "test-package: building the package (dpkg-buildpackage, log in $work/build.log)" >&2
if ! (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=2" dpkg-buildpackage -b -us -uc) \
    >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  echo "test-package: the package did not build (whole log: $work/build.log)" >&2
  exit 1
fi
deb=$(ls "$work"/kode-gopher_*_amd64.deb)
echo "test-package: installing $(basename "$deb") ($(du -h "$deb" | cut -f1))" >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --reinstall "./$deb" >/dev/null

python3 tests/setup/test_installed_package.py "$deb"
