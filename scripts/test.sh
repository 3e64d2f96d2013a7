#!/usr/bin/env bash
# README's second command (and CI's, .ci/run): set up, build the k8s suite's cluster (etcd,
# kube-apiserver, the agent-sandbox controller and router, from the Go proxy into build/k8s-tools;
# about 11 minutes on two cores the first time, seconds after; tests/k8s/README.md), then run every
# test suite, the k8s one included, a short fuzz run, and build, install and try the Debian
# package (scripts/test-package.sh). Extra arguments go to `meson test`, e.g. `scripts/test.sh
# --suite unit`, and skip the package. `scripts/test.sh --k8s` runs only the k8s suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --tests
. scripts/go-env.sh  # the Go setup.sh picked
tests/k8s/build-cluster-tools.sh build/k8s-tools
if [ "${1:-}" = --k8s ]; then
  shift
  exec meson test -C build --print-errorlogs --suite k8s "$@"
fi
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
# The host install by the book: build the Debian package, install it, run examples through the
# installed daemon (docs/install.md). Only on a whole run (no arguments); KG_SKIP_PACKAGE=1 skips.
if [ $# -eq 0 ] && [ "${KG_SKIP_PACKAGE:-0}" != 1 ]; then
  ./scripts/test-package.sh || status=1
fi
# A short libFuzzer run of every fuzz/ target (docs/fuzzing.md); KG_SKIP_FUZZ=1 skips it.
if [ "${KG_SKIP_FUZZ:-0}" != 1 ]; then
  ./scripts/fuzz.sh --ci || status=1
fi
exit "$status"
