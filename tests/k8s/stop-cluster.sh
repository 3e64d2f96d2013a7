#!/usr/bin/env bash
# Stops the k8s test cluster start-cluster.sh started from <state-dir>: SIGTERM to its supervisor,
# which stops every part (and the kode-gopher-sandbox servers of the pods); after 20 s, SIGKILL to
# the supervisor's whole process group. Stopping a cluster that is not running succeeds.
#
# Usage: tests/k8s/stop-cluster.sh <state-dir>
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: $0 <state-dir>" >&2
	exit 2
fi
pid_file=$1/supervisor.pid
if [[ ! -f "$pid_file" ]]; then
	exit 0
fi
pid=$(cat "$pid_file")
# Only signal the pid if it still is our supervisor (the number may have been reused).
if ! grep -q 'kcluster' "/proc/$pid/cmdline" 2>/dev/null; then
	rm -f "$pid_file"
	exit 0
fi
kill -TERM "$pid" 2>/dev/null || true
for _ in $(seq 200); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
	echo "stop-cluster: supervisor $pid did not stop within 20 s; killing its process group" >&2
	kill -KILL -- "-$pid" 2>/dev/null || true
fi
rm -f "$pid_file"
