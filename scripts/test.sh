#!/usr/bin/env bash
# README's second command: set up, then run every test suite (unit, plugins, integration).
# Extra arguments go to `meson test`, e.g. `scripts/test.sh --suite unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --no-prewarm
export PATH="$PATH:/usr/local/go/bin"
meson test -C build --print-errorlogs --num-processes 2 "$@"
