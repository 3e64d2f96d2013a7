#!/usr/bin/env bash
# README's second command (and CI's, .ci/run): set up, build the k8s suite's cluster (etcd,
# kube-apiserver, the agent-sandbox controller and router, from the Go proxy into build/k8s-tools;
# about 11 minutes on two cores the first time, seconds after; tests/k8s/README.md), then run every
# test suite, the k8s one included, a short fuzz run, and build, install and try the Debian
# package (scripts/test-package.sh). Extra arguments go to `meson test`, e.g. `scripts/test.sh
# --suite unit`, and skip the package. `scripts/test.sh --k8s` runs only the k8s suite.
# Each stage's wall time is printed when it ends ("test.sh: stage ... took ..."), and the whole
# run's at the end, so a CI log shows where the time goes.
set -euo pipefail
cd "$(dirname "$0")/.."
run_started=$SECONDS

# timed NAME COMMAND...: runs COMMAND, then prints how long it took and how it ended; returns its
# exit status.
timed() {
  local name=$1 started=$SECONDS rc=0
  shift
  "$@" || rc=$?
  local took=$((SECONDS - started))
  echo "test.sh: stage $name took $((took / 60))m$((took % 60))s (exit $rc)"
  return "$rc"
}

timed setup ./scripts/setup.sh --tests
. scripts/go-env.sh  # the Go setup.sh picked
timed "cluster tools" tests/k8s/build-cluster-tools.sh build/k8s-tools
if [ "${1:-}" = --k8s ]; then
  shift
  timed "meson test (k8s)" meson test -C build --print-errorlogs --suite k8s "$@"
  exit
fi
status=0
timed "meson test" meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
# The host install by the book: build the Debian package, install it, run examples through the
# installed daemon (docs/install.md). Only on a whole run (no arguments); KG_SKIP_PACKAGE=1 skips.
if [ $# -eq 0 ] && [ "${KG_SKIP_PACKAGE:-0}" != 1 ]; then
  timed package ./scripts/test-package.sh || status=1
fi
# A short libFuzzer run of every fuzz/ target (docs/fuzzing.md); KG_SKIP_FUZZ=1 skips it.
if [ "${KG_SKIP_FUZZ:-0}" != 1 ]; then
  timed fuzz ./scripts/fuzz.sh --ci || status=1
fi
took=$((SECONDS - run_started))
echo "test.sh: all stages took $((took / 60))m$((took % 60))s (exit $status)"
exit "$status"
