#!/usr/bin/env bash
# kode-gopher's benchmark, one command: builds what it needs into build-bench, installs
# fake-gcs-server and the upstream yaegi CLI into a bench-local GOBIN, starts daemons on the embedded default (local
# bubblewrap sandboxes) with bench configs, measures, and writes bench/RESULTS.md and
# bench/results.json. Every process it starts is stopped on exit, failure or Ctrl-C.
#
#   bench/run.sh [--quick] [kgbench.py options, e.g. --reps 7 --warmup 1]
#   bench/run.sh --profile [--reps 7 --warmup 1 --rows hello,edit,storage]   # issue 15's profile:
#       writes bench/PROFILE.md and bench/profile.json instead (profile.py)
#
# Environment: KG_BENCH_BUILD (build dir, default <repo>/build-bench), KG_BENCH_BASE_CACHE and
# KG_BENCH_BASE_MODCACHE (a prewarmed base build cache and module cache; default: the integration
# tests' caches in <repo>/build/tests/integration when present, else prewarmed once into
# <build>/bench-cache with `kode-gopherd --prewarm`, which takes several minutes);
# KG_BENCH_SKIP_BUILD=1 uses the binaries already in the build dir; KG_BENCH_CLI measures another
# kode-gopher CLI binary.
set -euo pipefail

FAKE_GCS_VERSION=v1.56.1
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${KG_BENCH_BUILD:-$repo/build-bench}
# Absolute, as the caller named it from its own folder: `go install` (GOBIN) and the daemons
# started from other folders need an absolute path.
[[ $build == /* ]] || build=$PWD/$build
tools=$build/bench-tools
extra=()
mode=bench
if [[ ${1:-} == --quick ]]; then
  shift
  extra=(--reps 2 --warmup 1 --first-call-reps 1 --throughput-calls 1 --concurrency 1,2)
elif [[ ${1:-} == --profile ]]; then
  shift
  mode=profile
fi

if [[ ! -f $build/build.ninja ]]; then
  meson setup "$build" "$repo" --buildtype=release
fi
if [[ ${KG_BENCH_SKIP_BUILD:-0} != 1 ]]; then
  meson compile -C "$build" kode-gopherd kode-gopher kode-gopher-sandbox compiled-go cacheprog_exe \
    fastbuild_exe yaegi yaegi_runner_exe creds-adc
fi
cli=${KG_BENCH_CLI:-$build/cli/kode-gopher}

if [[ ! -x $tools/bin/fake-gcs-server ]]; then
  echo "Installing fake-gcs-server $FAKE_GCS_VERSION into $tools/bin (through the Go proxy)"
  GOBIN=$tools/bin timeout 1200 go install "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION"
fi

# The upstream yaegi CLI, from the same pinned module as the runner (sandbox/yaegi-runner/go.mod).
yaegi_version=$(sed -n 's/^require github.com\/traefik\/yaegi \(v[^ ]*\)$/\1/p' "$repo/sandbox/yaegi-runner/go.mod")
if [[ $mode == bench && ! -x $tools/yaegi-$yaegi_version/yaegi ]]; then
  echo "Installing the yaegi CLI $yaegi_version into $tools/yaegi-$yaegi_version (through the Go proxy)"
  GOBIN=$tools/yaegi-$yaegi_version timeout 1200 go install "github.com/traefik/yaegi/cmd/yaegi@$yaegi_version"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kg-bench.XXXXXX")
# Traversable (not listable) by others: a root daemon runs its sandboxes as the unprivileged
# [sandbox] host_uid only when that uid can reach the state dir, as in a default install; under
# mktemp's 0700 it would fall back to mapping them to root, and measure that instead.
chmod 0711 "$work"
cleanup() {
  local rc=$?
  # Every process kgbench.py started is in $work/pids (each leads its own process group).
  if [[ -f $work/pids ]]; then
    while read -r pid; do
      [[ -n $pid ]] && kill -TERM -- "-$pid" 2>/dev/null || true
      [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null || true
    done <"$work/pids"
    sleep 1
    while read -r pid; do
      [[ -n $pid ]] && kill -KILL -- "-$pid" 2>/dev/null || true
      [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null || true
    done <"$work/pids"
  fi
  if [[ $rc -ne 0 && -d $work ]]; then
    mkdir -p "$build/bench-logs"
    find "$work" -maxdepth 2 -name '*.log' -exec cp --parents {} "$build/bench-logs/" \; 2>/dev/null || true
    echo "Logs of the failed run: $build/bench-logs" >&2
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

base_cache=${KG_BENCH_BASE_CACHE:-}
base_modcache=${KG_BENCH_BASE_MODCACHE:-}
if [[ -z $base_cache ]]; then
  for candidate in "$build/tests/integration" "$repo/build/tests/integration"; do
    if [[ -d $candidate/gocache-base && -d $candidate/gomodcache-base ]]; then
      base_cache=$candidate/gocache-base
      base_modcache=$candidate/gomodcache-base
      break
    fi
  done
fi
if [[ -z $base_cache ]]; then
  base_cache=$build/bench-cache/gocache-base
  base_modcache=$build/bench-cache/gomodcache-base
  mkdir -p "$build/bench-cache"
  printf '[daemon]\nstate_dir = %s\nsocket = %s\n[sandbox]\nbase_cache_dir = %s\nbase_modcache_dir = %s\n' \
    "$work/prewarm" "$work/prewarm.sock" "$base_cache" "$base_modcache" >"$work/prewarm.ini"
  echo "Prewarming the base Go build cache into $build/bench-cache (once; several minutes)"
  timeout 3600 "$build/daemon/kode-gopherd" --config "$work/prewarm.ini" --prewarm
fi

cd "$repo/bench"
if [[ $mode == profile ]]; then
  timeout 3600 python3 profile.py \
    --work "$work" --out-dir "$repo/bench" \
    --daemon "$build/daemon/kode-gopherd" \
    --cacheprog "$build/sandbox/cacheprog/kode-gopher-cacheprog" \
    --fake-gcs "$tools/bin/fake-gcs-server" \
    --base-cache "$base_cache" --base-modcache "$base_modcache" \
    --lockfile "$repo/sandbox/lockfile" "$@"
  exit
fi
timeout 3600 python3 kgbench.py \
  --work "$work" --out-dir "$repo/bench" \
  --daemon "$build/daemon/kode-gopherd" --cli "$cli" \
  --cacheprog "$build/sandbox/cacheprog/kode-gopher-cacheprog" \
  --fake-gcs "$tools/bin/fake-gcs-server" \
  --yaegi-cli "$tools/yaegi-$yaegi_version/yaegi" \
  --base-cache "$base_cache" --base-modcache "$base_modcache" \
  --lockfile "$repo/sandbox/lockfile" "${extra[@]}" "$@"
