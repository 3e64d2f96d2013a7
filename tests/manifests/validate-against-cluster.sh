#!/usr/bin/env bash
# Validates every rendered kustomization under manifests/ against a real Kubernetes API server
# that has the agent-sandbox CRDs (v1.0.1): a server-side apply dry run with strict field
# validation, so the server checks each object against its own OpenAPI (built-in kinds) and the
# CRDs' structural schemas, defaulting and admission included, and rejects unknown or duplicate
# fields. Nothing is changed on the cluster except what the dry run needs to exist: the
# kode-gopher namespace and a RuntimeClass named gvisor (handler runsc), created when missing.
#
# Usage: tests/manifests/validate-against-cluster.sh KUBECONFIG
#   KUBECTL  the kubectl to use (default: kubectl on PATH)
#   GO       the go command kustomize.sh builds kustomize with (default: scripts/go-env.sh's)
# Prints one line per kustomization and 'N passed, N failed'; exit 1 on any failure.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -r "$1" ]; then
  echo "usage: $0 KUBECONFIG   (a readable kubeconfig of a cluster with the agent-sandbox CRDs)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kubectl=${KUBECTL:-kubectl}
command -v "$kubectl" >/dev/null ||
  { echo "validate-against-cluster.sh: no kubectl ($kubectl); set KUBECTL" >&2; exit 2; }
k() { "$kubectl" --kubeconfig "$1" "${@:2}"; }
config=$1
kustomize=$("$here/kustomize.sh")

for crd in sandboxes.agents.x-k8s.io sandboxclaims.extensions.agents.x-k8s.io \
           sandboxtemplates.extensions.agents.x-k8s.io sandboxwarmpools.extensions.agents.x-k8s.io; do
  if ! k "$config" get crd "$crd" >/dev/null 2>&1; then
    echo "validate-against-cluster.sh: the cluster has no CRD $crd; install agent-sandbox v1.0.1" \
      "first (docs/kubernetes.md)" >&2
    exit 1
  fi
done
k "$config" get namespace kode-gopher >/dev/null 2>&1 || k "$config" create namespace kode-gopher
if ! k "$config" get runtimeclass gvisor >/dev/null 2>&1; then
  k "$config" apply -f - <<'EOF'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
EOF
fi

# Not overlays/team/gke/managed-prometheus: an optional component whose PodMonitoring kind only
# clusters with GKE's managed collection know (test-manifests.py checks it by hand).
passed=0 failed=0
for kustomization in base overlays/daemon overlays/gvisor overlays/gke overlays/team overlays/team/tls \
                     overlays/team/gke; do
  rendered=$("$kustomize" build "$repo/manifests/$kustomization")
  # --force-conflicts: objects applied by someone else (a running install, the k8s suite) are
  # validated all the same; a dry run changes nothing.
  if output=$(k "$config" apply --server-side --dry-run=server --validate=strict --force-conflicts \
                --field-manager=kode-gopher-validate -f - <<<"$rendered" 2>&1); then
    passed=$((passed + 1))
    echo "ok   $kustomization: $(grep -c 'serverside-applied (server dry run)' <<<"$output") objects"
  else
    failed=$((failed + 1))
    echo "FAIL $kustomization"
    sed 's/^/  /' <<<"$output"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
