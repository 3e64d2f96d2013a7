#!/usr/bin/env bash
# Installs what kode-gopher needs on a Debian machine, builds it with Meson into ./build and
# prewarms the Go build cache that sandboxes share. Safe to run again: each step is skipped when
# it is already done. Used by README's two commands (run-example.sh and test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(meson ninja-build g++ pkg-config cmake python3 libpoco-dev rapidjson-dev libarchive-dev
          libsqlite3-dev libcli11-dev doctest-dev bubblewrap libseccomp-dev
          slirp4netns iproute2)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The MCP tests run real clients from npm (the TypeScript SDK, the Inspector).
if ! command -v npm >/dev/null || ! command -v npx >/dev/null; then
  echo "setup: installing npm" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
fi

# Go >= 1.24 (GOCACHEPROG): use the one on PATH or in /usr/local/go.
export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null; then
  echo "setup: no Go toolchain found; install Go 1.24 or newer (https://go.dev/dl) and retry" >&2
  exit 1
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [ "${go_minor:-0}" -lt 24 ]; then
  echo "setup: $(go env GOVERSION) is too old; kode-gopher needs Go 1.24 or newer" >&2
  exit 1
fi

if [ ! -f build/build.ninja ]; then
  meson setup build --prefix="$PWD/.local" >/dev/null
fi
echo "setup: building (meson compile -C build)" >&2
meson compile -C build >/dev/null

# The shared prewarmed Go build cache of the default config (a no-op when current). The tests
# keep their own in the build tree, so test.sh passes --no-prewarm.
if [ "${1:-}" != "--no-prewarm" ]; then
  ./build/daemon/kode-gopherd --prewarm
fi
