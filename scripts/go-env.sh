# Sourced, not run, by setup.sh, test.sh, run-example.sh and fuzz.sh, so that all of them (and the
# Meson build they configure) use one Go toolchain: go_toolchain.py picks it (a Go >= 1.24 on PATH
# or in /usr/local/go, else the pinned one, installed and verified on first use) and prints its
# GOROOT. Exports it as KG_GO_ROOT and puts its bin first on PATH. The caller runs under set -e.
PATH="$PATH:/usr/local/go/bin"  # where the go.dev/dl tarball installs
KG_GO_ROOT=$(python3 "$(dirname "${BASH_SOURCE[0]}")/go_toolchain.py")
export KG_GO_ROOT
export PATH="$KG_GO_ROOT/bin:$PATH"
