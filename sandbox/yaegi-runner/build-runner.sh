#!/usr/bin/env bash
# Builds kode-gopher-yaegi (meson's custom_target in meson.build runs this; see README.md):
#   1. takes github.com/traefik/yaegi at the version go.mod pins from the module cache (the Go
#      proxy fills it on first use) and applies patches/*.patch to a copy in the work folder;
#   2. stages this folder's Go sources next to it with a go.mod made of this module's own
#      requirements plus every requirement of the curated lockfile (sandbox/lockfile), so the
#      symbol tables link exactly the versions a compiled program gets, and yaegi replaced by
#      the patched copy;
#   3. go build.
# Usage: build-runner.sh <go> <runner source dir> <lockfile dir> <work dir> <output>
set -euo pipefail
go=$1 src=$2 lockfile=$3 work=$4
out=$(realpath -m "$5")  # the build steps below change folders
# -mod=readonly: the build fails rather than move a version away from the lockfile's.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly GOWORK=off

yaegi_version=$(sed -n 's/^require github.com\/traefik\/yaegi \(v[^ ]*\)$/\1/p' "$src/go.mod")
[ -n "$yaegi_version" ] || { echo "build-runner: no 'require github.com/traefik/yaegi vX' line in $src/go.mod" >&2; exit 1; }

# 1. The patched interpreter.
yaegi_dir=$(cd "$src" && "$go" mod download -json "github.com/traefik/yaegi@$yaegi_version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$yaegi_dir" ] || { echo "build-runner: go mod download github.com/traefik/yaegi@$yaegi_version gave no folder" >&2; exit 1; }
rm -rf "$work/yaegi" "$work/stage"
mkdir -p "$work"
cp -r "$yaegi_dir" "$work/yaegi"
chmod -R u+w "$work/yaegi"
for p in "$src"/patches/*.patch; do
  patch --quiet --batch --forward -p1 -d "$work/yaegi" < "$p" ||
    { echo "build-runner: $p does not apply to yaegi $yaegi_version" >&2; exit 1; }
done

# 2. The stage: sources, go.mod, go.sum.
mkdir -p "$work/stage"
cp -r "$src/." "$work/stage/"
rm -rf "$work/stage/patches" "$work/stage/testdata"
cp "$lockfile/go.mod" "$work/stage/go.mod"
(cd "$work/stage" && "$go" mod edit -module kode-gopher/sandbox/yaegi-runner \
  -require="github.com/traefik/yaegi@$yaegi_version" -replace="github.com/traefik/yaegi=$work/yaegi")
cat "$src/go.sum" "$lockfile/go.sum" | sort -u > "$work/stage/go.sum"

# 3. The binary.
(cd "$work/stage" && "$go" build -trimpath -buildvcs=false -o "$out.tmp" .)
mv "$out.tmp" "$out"
