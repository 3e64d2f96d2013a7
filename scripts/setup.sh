#!/usr/bin/env bash
# Installs what kode-gopher needs on a Debian machine (Go too, see scripts/go_toolchain.py) and
# builds it with Meson into ./build. Safe to run again: each step is skipped when it is already
# done. Used by README's two commands:
#   setup.sh          (run-example.sh) only what builds and runs the daemon: an optimised build
#                     without the test suites, then the prewarmed Go build cache that sandboxes
#                     share;
#   setup.sh --tests  (test.sh) also the test suites' Debian packages and the image tools
#                     (packaging/debian-test-packages.txt, debian-image-build-packages.txt), a
#                     build (-O2 -g) with the test suites and their peers and clients
#                     (fake-gcs-server, pstest-tls, google-auth); no prewarm: the tests keep
#                     their own caches.
#                     --no-prewarm is its older name.
set -euo pipefail
cd "$(dirname "$0")/.."
FOR_TESTS=false
case "${1:-}" in
  --tests|--no-prewarm) FOR_TESTS=true ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 64 ;;
esac

# What builds it (one list, shared with sandbox/Dockerfile and debian/control) and what runs it;
# with --tests also what the test suites use and what builds the OCI images (the k8s suite's).
package_list() { sed 's/#.*//; /^[[:space:]]*$/d; s/[[:space:]]//g' "$1"; }
mapfile -t PACKAGES < <(package_list packaging/debian-build-packages.txt)
PACKAGES+=(bubblewrap slirp4netns iproute2 ca-certificates openssl)
if $FOR_TESTS; then
  mapfile -t -O "${#PACKAGES[@]}" PACKAGES < <(package_list packaging/debian-test-packages.txt)
  mapfile -t -O "${#PACKAGES[@]}" PACKAGES < <(package_list packaging/debian-image-build-packages.txt)
fi
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
if $FOR_TESTS && { ! command -v npm >/dev/null || ! command -v npx >/dev/null; }; then
  echo "setup: installing npm" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
fi

# Go >= 1.24 (GOCACHEPROG): the one on PATH or in /usr/local/go, else the pinned toolchain, which
# scripts/go_toolchain.py downloads from the Go module proxy and verifies on first use. The build
# records it (-Dgo_root), so the daemon uses it too, whatever the PATH it later starts with.
. scripts/go-env.sh
echo "setup: Go toolchain $(go env GOVERSION) in $KG_GO_ROOT" >&2

# The options this set-up builds with. A build dir made by an older checkout keeps the values it
# was configured with (meson does not pick up changed defaults), so any difference reconfigures.
SETUP_OPTIONS=(go_root="$KG_GO_ROOT" plugin_compiled_go=enabled plugin_yaegi=enabled
               plugin_creds_adc=enabled plugin_creds_workload=enabled)
if $FOR_TESTS; then
  SETUP_OPTIONS+=(tests=true buildtype=debugoptimized)
else
  SETUP_OPTIONS+=(tests=false buildtype=release)
fi
configured_options_differ() {
  meson introspect build --buildoptions | python3 -c '
import json, sys
have = {o["name"]: str(o["value"]) for o in json.load(sys.stdin)}
want = dict(arg.split("=", 1) for arg in sys.argv[1:])
sys.exit(0 if any(have.get(k) != v for k, v in want.items()) else 1)' "${SETUP_OPTIONS[@]}"
}
if [ ! -f build/build.ninja ]; then
  meson setup build --prefix="$PWD/.local" "${SETUP_OPTIONS[@]/#/-D}" >/dev/null
elif configured_options_differ; then
  # --reconfigure, not `meson configure`: a build dir made before an option existed lacks it.
  meson setup --reconfigure build "${SETUP_OPTIONS[@]/#/-D}" >/dev/null
fi
echo "setup: building (meson compile -C build)" >&2
meson compile -C build >/dev/null

if ! $FOR_TESTS; then
  # The shared prewarmed Go build cache of the default config (a no-op when current).
  ./build/daemon/kode-gopherd --prewarm
  exit 0
fi

# Test peers and clients for the credentials and egress tests, pinned: fake-gcs-server (the
# storage peer of the hostile egress suite) through the Go module proxy, and Python's
# google-auth from PyPI (a client of the sandbox's metadata emulator).
if [ ! -x build/tests/tools/fake-gcs-server ]; then
  echo "setup: building fake-gcs-server for the egress tests (go install)" >&2
  GOFLAGS= GOBIN="$PWD/build/tests/tools" go install github.com/fsouza/fake-gcs-server@v1.56.1
fi
# The Pub/Sub peer of the hostile egress suite (tests/tools/pstest_tls: pstest over TLS, pinned
# by its go.mod and go.sum), and the module mirror that suite's daemon runs go mod tidy against
# for its Pub/Sub program (the test network reaches no module proxy): tidying that program
# against the curated lockfile here downloads every module it needs; only the downloads
# (cache/download, a file:// GOPROXY) are kept. Made again when the program or lockfile changes.
if [ ! -x build/tests/tools/pstest-tls ]; then
  echo "setup: building pstest-tls for the egress tests (go build)" >&2
  mkdir -p build/tests/tools
  (cd tests/tools/pstest_tls && GOFLAGS=-mod=readonly GOTOOLCHAIN=local CGO_ENABLED=0 \
     go build -o ../../../build/tests/tools/pstest-tls .)
fi
pubsub_modules=build/tests/tools/pubsub-modules
pubsub_stamp=$(cat tests/hostile/data/pubsub_program.go sandbox/lockfile/go.mod \
               sandbox/lockfile/go.sum | sha256sum | cut -d' ' -f1)
if [ "$(cat "$pubsub_modules/stamp" 2>/dev/null)" != "$pubsub_stamp" ]; then
  echo "setup: filling the Pub/Sub module mirror for the egress tests (go mod tidy)" >&2
  rm -rf "$pubsub_modules"
  tidy_dir=$(mktemp -d)
  cp sandbox/lockfile/go.mod sandbox/lockfile/go.sum tests/hostile/data/pubsub_program.go "$tidy_dir/"
  # The version the tests were written against, then whatever else the program needs.
  (cd "$tidy_dir" && export GOMODCACHE="$OLDPWD/$pubsub_modules" GOFLAGS="-mod=mod -modcacherw" \
     GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 &&
   go get cloud.google.com/go/pubsub/v2@v2.9.0 && go mod tidy >/dev/null)
  rm -rf "$tidy_dir"
  # Only the downloads: the unpacked trees are not needed by a file:// GOPROXY.
  find "$pubsub_modules" -mindepth 1 -maxdepth 1 ! -name cache -exec rm -rf {} +
  echo "$pubsub_stamp" > "$pubsub_modules/stamp"
fi
if [ ! -x build/tests/tools/google-auth-venv/bin/python ]; then
  echo "setup: installing google-auth for the metadata emulator tests (pip, into a venv)" >&2
  python3 -m venv build/tests/tools/google-auth-venv
  build/tests/tools/google-auth-venv/bin/pip install -q "google-auth==2.40.3" "requests==2.34.2"
fi
