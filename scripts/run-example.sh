#!/usr/bin/env bash
# README's first command: set up, then run examples/hello (a program) and examples/snippet (a
# func run snippet), then examples/wordcount and examples/snippet with runtime auto, through the
# daemon (the CLI starts the daemon on the embedded default, local bubblewrap sandboxes, when none
# is running); show whose credentials programs get and what the daemon recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. scripts/go-env.sh  # the Go setup.sh picked
./build/cli/kode-gopher exec examples/hello
./build/cli/kode-gopher exec examples/snippet
# Runtime auto: Yaegi interprets a snippet when the runner's static check finds it safe, in
# milliseconds instead of a go build; runtime_reason says why either way.
./build/cli/kode-gopher exec --runtime auto examples/wordcount
./build/cli/kode-gopher exec --runtime auto examples/snippet
# Whose Google identity programs run as (mode none, with how to log in, when there is no ADC).
./build/cli/kode-gopher auth status || true
./build/cli/kode-gopher stats
