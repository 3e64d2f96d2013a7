#!/usr/bin/env bash
# Builds kode-gopher-yaegi-cloud and the stage kode-gopher-yaegi is built from (meson.build runs
# this; see README.md):
#   1. takes github.com/traefik/yaegi at the version go.mod pins from the module cache (the Go
#      proxy fills it on first use) and applies patches/*.patch to a copy in the work folder;
#   2. stages this folder's Go sources next to it with a go.mod made of this module's own
#      requirements plus every requirement of the curated lockfile (sandbox/lockfile), so the
#      symbol tables link exactly the versions a compiled program gets, and yaegi replaced by
#      the patched copy;
#   3. generates the symbol tables of the curated packages (yaegi's extractor, from go's export
#      data) into the stage: they always match the lockfile;
#   4. go build of kode-gopher-yaegi-cloud (the fast kode-gopher-yaegi is meson.build's second
#      target, built from the same stage). Every Go helper is linked with -s -w: no symbol table or
#      DWARF (stacks keep their function names and lines), a third less to ship in the image.
# Usage: build-runner.sh <go> <runner source dir> <lockfile dir> <work dir> <output>
set -euo pipefail
go=$1 src=$2 lockfile=$3 work=$4
out=$(realpath -m "$5")  # the build steps below change folders
# -mod=readonly: the build fails rather than move a version away from the lockfile's.
# -trimpath for every step, so that go list -export (extractsyms) and go build share the cache.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -trimpath" GOWORK=off
export PATH="$(dirname "$go"):$PATH"  # internal/extractsyms runs go list

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

# 3. Curated symbol tables (internal/extractsyms; curated_symbols.go uses them).
(cd "$work/stage" && "$go" run ./internal/extractsyms -curated "$lockfile/curated.go" -o .)

# 4. kode-gopher-yaegi-cloud, the runner with the curated packages (cloud_runner.go);
#    meson.build's second target then builds kode-gopher-yaegi from the same stage.
(cd "$work/stage" && "$go" build -buildvcs=false -ldflags="-s -w" -tags kg_curated -o "$out.tmp" .)
mv "$out.tmp" "$out"
