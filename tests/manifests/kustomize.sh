#!/usr/bin/env bash
# Prints the path of the kustomize the manifest tests render with, building it first when it is
# not there: sigs.k8s.io/kustomize/kustomize/v5 at a pinned version, through the Go module proxy
# (the newest release whose go.mod accepts Go 1.26), into $KG_TOOLS_DIR (default
# <repo>/build/tests/tools, where scripts/setup.sh keeps the other test tools). The go command
# is $GO, else the one scripts/go-env.sh picks. kubectl's built-in kustomize is not used: it is
# not installed by scripts/setup.sh, and its version follows kubectl's.
set -euo pipefail
KUSTOMIZE_VERSION=v5.8.2
repo=$(cd "$(dirname "$0")/../.." && pwd)
tools=${KG_TOOLS_DIR:-$repo/build/tests/tools}
target="$tools/kustomize-$KUSTOMIZE_VERSION"
if [ ! -x "$target/kustomize" ]; then
  if [ -z "${GO:-}" ]; then
    . "$repo/scripts/go-env.sh"
    GO="$KG_GO_ROOT/bin/go"
  fi
  echo "kustomize.sh: building kustomize $KUSTOMIZE_VERSION into $target (go install)" >&2
  mkdir -p "$target"
  GOBIN="$target" GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0 \
    "$GO" install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&2
fi
version=$("$target/kustomize" version)
[ "$version" = "$KUSTOMIZE_VERSION" ] ||
  { echo "kustomize.sh: $target/kustomize reports '$version', not $KUSTOMIZE_VERSION" >&2; exit 1; }
echo "$target/kustomize"
