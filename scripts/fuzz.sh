#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan) in ./build-fuzz and runs each
# for a while (docs/fuzzing.md). Exits non-zero when any target finds a crash, and says where
# the reproducer is and how to keep it as a regression seed.
#
#   scripts/fuzz.sh                  every target for 60 s
#   scripts/fuzz.sh --seconds 600    longer
#   scripts/fuzz.sh --ci             every target for 15 s (scripts/test.sh runs this)
#   scripts/fuzz.sh --target tar_extraction --seconds 300
#
# New inputs go to build-fuzz/fuzz-corpus/<target>/ (kept between runs, so longer runs build on
# shorter ones); the seeds in fuzz/corpus/<target>/ are read, never written.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

seconds=60
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --seconds=*) seconds="${1#--seconds=}"; shift ;;
    --ci) seconds=15; shift ;;
    --target) targets+=("${2:?--target needs a name, e.g. tar_extraction}"); shift 2 ;;
    --target=*) targets+=("${1#--target=}"); shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "fuzz: unknown argument $1" >&2; usage >&2; exit 64 ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: --seconds wants a positive whole number, not '$seconds'" >&2
  exit 64
fi
if ((${#targets[@]} == 0)); then
  for source in fuzz/fuzz_*.cpp; do
    name="${source#fuzz/fuzz_}"
    targets+=("${name%.cpp}")
  done
fi
for target in "${targets[@]}"; do
  if [ ! -f "fuzz/fuzz_$target.cpp" ]; then
    echo "fuzz: no target '$target' (there is no fuzz/fuzz_$target.cpp)" >&2
    exit 64
  fi
done

# clang and its runtime libraries (libFuzzer, ASan, UBSan). Only this script needs them.
PACKAGES=(clang libclang-rt-14-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fuzz: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    "${missing[@]}" >/dev/null
fi

. scripts/go-env.sh  # the project's meson setup needs Go: the one setup.sh picks
build=build-fuzz
if [ ! -f "$build/build.ninja" ]; then
  echo "fuzz: configuring $build (clang, -Dfuzzing=true)" >&2
  rm -rf "$build"  # what a failed setup left behind
  setup_log=$(mktemp)
  CC=clang CXX=clang++ meson setup "$build" -Dfuzzing=true -Dtests=false -Dgo_root="$KG_GO_ROOT" \
    --prefix="$PWD/.local-fuzz" >"$setup_log" 2>&1 || {
    cat "$setup_log" >&2
    rm -f "$setup_log"
    echo "fuzz: meson setup of $build failed (log above)" >&2
    exit 1
  }
  rm -f "$setup_log"
fi
echo "fuzz: building ${targets[*]}" >&2
meson compile -C "$build" "${targets[@]/#/fuzz/fuzz_}" >"$build/fuzz-build.log" 2>&1 || {
  tail -50 "$build/fuzz-build.log" >&2
  echo "fuzz: building the fuzz targets failed (full log: $build/fuzz-build.log)" >&2
  exit 1
}

# The fixtures make their scratch folders under TMPDIR; a crash leaves them here, not in /tmp.
export TMPDIR="$PWD/$build/fuzz-tmp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"
failed=()
for target in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$target"
  artifacts="$build/fuzz-artifacts/$target"
  log="$build/fuzz-logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  echo "fuzz: $target for ${seconds}s (corpus $corpus + fuzz/corpus/$target)" >&2
  # -timeout: one input running that long is a hang worth a reproducer too.
  if "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 \
      "$corpus" "fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz: $target ok: ${runs:-?} inputs, ${coverage:-cov: ?} edges" >&2
  else
    failed+=("$target")
    echo "fuzz: $target FAILED; the end of its log ($log):" >&2
    grep -v '^#[0-9]' "$log" | tail -40 >&2
    for reproducer in $(grep -o "Test unit written to .*" "$log" | sed 's/^Test unit written to //'); do
      echo "fuzz: reproducer: $reproducer" >&2
      echo "fuzz:   replay it:   $build/fuzz/fuzz_$target $reproducer" >&2
      echo "fuzz:   once fixed, keep it as a regression seed:" \
           "cp $reproducer fuzz/corpus/$target/<what-it-tests>" >&2
    done
  fi
done
rm -rf "$TMPDIR"

if ((${#failed[@]})); then
  echo "fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s each without a crash" >&2
