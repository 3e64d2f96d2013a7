#!/usr/bin/env bash
# README's second command: set up, then run every test suite (unit, plugins, integration).
# Extra arguments go to `meson test`, e.g. `scripts/test.sh --suite unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --no-prewarm
. scripts/go-env.sh  # the Go setup.sh picked
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
# A short libFuzzer run of every fuzz/ target (docs/fuzzing.md); KG_SKIP_FUZZ=1 skips it.
if [ "${KG_SKIP_FUZZ:-0}" != 1 ]; then
  ./scripts/fuzz.sh --ci || status=1
fi
exit "$status"
