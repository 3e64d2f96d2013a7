#!/usr/bin/env bash
# README's second command: set up, then run every test suite (unit, plugins, integration, ...)
# but the opt-in k8s suite, then build, install and try the Debian package
# (scripts/test-package.sh). Extra arguments go to `meson test`, e.g. `scripts/test.sh --suite
# unit`, and skip the package.
# `scripts/test.sh --k8s` runs the k8s suite instead: it first builds the test cluster's etcd,
# kube-apiserver, agent-sandbox controller and router from the Go proxy into build/k8s-tools
# (about 11 minutes on two cores, once; tests/k8s/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --tests
. scripts/go-env.sh  # the Go setup.sh picked
if [ "${1:-}" = --k8s ]; then
  shift
  tests/k8s/build-cluster-tools.sh build/k8s-tools
  exec meson test -C build --print-errorlogs --suite k8s "$@"
fi
status=0
meson test -C build --print-errorlogs --num-processes 2 --no-suite k8s "$@" || status=$?
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
