#!/usr/bin/env bash
# Prints the path of the kube-score the manifest lint runs (lint-manifests.py), building it first
# when it is not there: github.com/zegl/kube-score at a pinned version, through the Go module proxy,
# into $KG_TOOLS_DIR (default <repo>/build/tests/tools), as kustomize.sh does kustomize. The go
# command is $GO, else the one scripts/go-env.sh picks.
#
# Why kube-score and not kube-linter: the Go module proxy serves no version of kube-linter's module
# (golang.stackrox.io/kube-linter: it lists none and refuses those asked for), and this project's
# tools come only from package registries, never from a release download; kube-score v1.20.0 builds
# with Go 1.26 as it is (about three minutes on two cores with its downloads).
set -euo pipefail
KUBE_SCORE_VERSION=v1.20.0
repo=$(cd "$(dirname "$0")/../.." && pwd)
tools=${KG_TOOLS_DIR:-$repo/build/tests/tools}
target="$tools/kube-score-$KUBE_SCORE_VERSION"
if [ ! -x "$target/kube-score" ]; then
  if [ -z "${GO:-}" ]; then
    . "$repo/scripts/go-env.sh"
    GO="$KG_GO_ROOT/bin/go"
  fi
  echo "kube-score.sh: building kube-score $KUBE_SCORE_VERSION into $target (go install)" >&2
  mkdir -p "$target"
  GOBIN="$target" GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0 \
    nice "$GO" install "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION" >&2
fi
echo "$target/kube-score"
