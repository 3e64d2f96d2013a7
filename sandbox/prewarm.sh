#!/bin/sh
# The two steps that prewarm a sandbox's Go caches from the curated lockfile (sandbox/lockfile),
# shared by the daemon (local sandboxes) and sandbox/Dockerfile (the Kubernetes image), so the
# two never drift. POSIX sh: it also runs inside a sandbox, which has /bin/sh but no bash.
#
#   prewarm.sh download LOCKFILE_DIR MODCACHE_DIR WORK_DIR
#       On a machine with the Go module proxy: downloads every module the lockfile's packages
#       need into MODCACHE_DIR (`go list -deps` fetches exactly what a build reads and compiles
#       nothing). WORK_DIR is made (empty) for the lockfile's files; the caller removes it.
#       The go command is $GO, else `go` on PATH. Ends by exec'ing go, so killing this
#       process stops the download.
#
#   prewarm.sh compile LOCKFILE_DIR
#       Run in an empty folder (a sandbox's /app) with the sandbox's environment and GOCACHE set
#       to the base cache being filled (not GOCACHEPROG): compiles the curated packages with
#       exactly the flags the compiled-go plugin builds with, then the standard library, so the
#       cache keys match what later sandboxes compute. Then kode-gopher-fastbuild prepares the
#       fast build path's data from them into $GOCACHE/kode-gopher-fastbuild.data: the binary
#       is $KG_FASTBUILD, else /opt/kode-gopher/bin/kode-gopher-fastbuild (where sandboxes have it).
#
#   prewarm.sh digest LOCKFILE_DIR
#       Prints the lockfile's sha256 exactly as the daemon computes it (BaseCache's
#       lockfile_digest: each of go.mod, go.sum, curated.go as name NUL content NUL).
#
# Exit status: 0 on success, 2 on a usage error, otherwise the failing command's status.
set -eu

LOCKFILE_FILES="go.mod go.sum curated.go"

usage() {
  echo "usage: prewarm.sh download LOCKFILE_DIR MODCACHE_DIR WORK_DIR" >&2
  echo "       prewarm.sh compile LOCKFILE_DIR   (in an empty folder, GOCACHE = the base cache)" >&2
  echo "       prewarm.sh digest LOCKFILE_DIR" >&2
  exit 2
}

fail() {
  echo "prewarm.sh: $*" >&2
  exit 1
}

# Every lockfile file must be there before anything is copied or downloaded.
check_lockfile() {
  [ -d "$1" ] || fail "lockfile folder $1 does not exist (it holds go.mod, go.sum, curated.go)"
  for name in $LOCKFILE_FILES; do
    [ -f "$1/$name" ] || fail "lockfile folder $1 has no $name"
  done
}

copy_lockfile() {
  for name in $LOCKFILE_FILES; do
    cp "$1/$name" "$2/$name"
  done
}

download() {
  [ $# -eq 3 ] || usage
  lockfile_dir=$1 modcache_dir=$2 work_dir=$3
  check_lockfile "$lockfile_dir"
  go_command=${GO:-go}
  command -v "$go_command" >/dev/null 2>&1 ||
    fail "no go command ($go_command); set GO to the toolchain's bin/go or put it on PATH"
  mkdir -p "$modcache_dir" "$work_dir"
  copy_lockfile "$lockfile_dir" "$work_dir"
  cd "$work_dir"
  export GOMODCACHE="$modcache_dir" GOFLAGS="-mod=mod -modcacherw" GOTOOLCHAIN=local \
    GOWORK=off CGO_ENABLED=0
  exec "$go_command" list -deps . >/dev/null
}

compile() {
  [ $# -eq 1 ] || usage
  lockfile_dir=$1
  check_lockfile "$lockfile_dir"
  # The environment is the sandbox's; refuse the ones that would fill the wrong cache or key it
  # differently from the sandboxes that read it.
  [ -z "${GOCACHEPROG:-}" ] ||
    fail "GOCACHEPROG is set: the build would fill its layers, not GOCACHE; unset it"
  [ -n "${GOCACHE:-}" ] || fail "GOCACHE is not set; set it to the base cache to fill"
  [ "${CGO_ENABLED:-}" = 0 ] || fail "CGO_ENABLED must be 0, as in every sandbox"
  [ "${GOTOOLCHAIN:-}" = local ] || fail "GOTOOLCHAIN must be local, as in every sandbox"
  fastbuild=${KG_FASTBUILD:-/opt/kode-gopher/bin/kode-gopher-fastbuild}
  [ -x "$fastbuild" ] || fail "no kode-gopher-fastbuild at $fastbuild; set KG_FASTBUILD to it"
  copy_lockfile "$lockfile_dir" .
  # The flags are kBuildFlags of plugins/compiled-go/compiled_go_plugin.cpp, word for word
  # (tests/manifests/test-sandbox-image.py checks it).
  go build -trimpath -buildvcs=false -ldflags='-s -w' -o /dev/null .
  go build -trimpath std
  exec "$fastbuild" prepare -flags "-trimpath -buildvcs=false -ldflags='-s -w'" \
    -lockfile-digest "$(digest "$lockfile_dir")" -out "$GOCACHE/kode-gopher-fastbuild.data"
}

digest() {
  [ $# -eq 1 ] || usage
  check_lockfile "$1"
  for name in $LOCKFILE_FILES; do
    printf '%s\0' "$name"
    cat "$1/$name"
    printf '\0'
  done | sha256sum | cut -d' ' -f1
}

[ $# -ge 1 ] || usage
step=$1
shift
case "$step" in
  download) download "$@" ;;
  compile) compile "$@" ;;
  digest) digest "$@" ;;
  *) usage ;;
esac
