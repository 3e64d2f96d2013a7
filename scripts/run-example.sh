#!/usr/bin/env bash
# README's first command: set up, then run examples/hello (a program) and examples/snippet (a
# func run snippet) through the daemon (the CLI starts the
# daemon on the embedded default, local bubblewrap sandboxes, when none is running), and show
# what the daemon recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. scripts/go-env.sh  # the Go setup.sh picked
./build/cli/kode-gopher exec examples/hello
./build/cli/kode-gopher exec examples/snippet
./build/cli/kode-gopher stats
