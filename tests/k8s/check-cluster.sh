#!/usr/bin/env bash
# Builds the cluster tools (if needed), starts a cluster in a fresh temporary state dir, runs the
# end-to-end check (kcluster e2e: claim -> Ready -> router -> execute -> delete, failure reasons,
# leases) against it, and stops it again, whatever happened. Exit status: the check's.
#
# Usage: tests/k8s/check-cluster.sh [--tools-dir DIR] [--sandbox-server PATH] [--show-json]
#   defaults as start-cluster.sh; the state dir is kept (and named) when the check fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
tools=${KG_K8S_TOOLS_DIR:-$repo/build/k8s-tools}
sandbox_server=${KG_SANDBOX_SERVER:-$repo/build/sandbox/server/kode-gopher-sandbox}
e2e_flags=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--tools-dir) tools=${2:?}; shift 2 ;;
	--sandbox-server) sandbox_server=${2:?}; shift 2 ;;
	--show-json) e2e_flags+=(--show-json); shift ;;
	*) echo "usage: $0 [--tools-dir DIR] [--sandbox-server PATH] [--show-json]" >&2; exit 2 ;;
	esac
done

"$here/build-cluster-tools.sh" "$tools"
state=$(mktemp -d "${TMPDIR:-/tmp}/kg-k8s-check.XXXXXX")
trap '"$here/stop-cluster.sh" "$state"' EXIT
"$here/start-cluster.sh" "$state" --parent-pid $$ --tools-dir "$tools" --sandbox-server "$sandbox_server"
if "$tools/bin/kcluster" e2e --state-dir "$state" "${e2e_flags[@]}"; then
	"$here/stop-cluster.sh" "$state"
	trap - EXIT
	rm -rf "$state"
else
	echo "check-cluster: the end-to-end check failed; the cluster's logs are in $state/logs" >&2
	exit 1
fi
