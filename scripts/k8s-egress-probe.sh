#!/usr/bin/env bash
# Checks, on a real cluster, that the NetworkPolicies kode-gopher relies on are enforced
# (docs/kubernetes.md, "Network policy is enforced only where the cluster enforces it"): a cluster
# without enforcement accepts a NetworkPolicy and silently ignores it, so only traffic shows it.
# It runs three short-lived pods of the sandbox image in NAMESPACE and prints one PASS or FAIL line
# per check:
#   sandbox pod (the label the sandbox template's policy selects, the template's gVisor settings):
#     dns            storage.googleapis.com resolves (the cluster DNS or GKE's node-local resolvers)
#     https-out      TCP 443 to storage.googleapis.com opens (non-team overlays), or, with the team
#                    overlays, egress-proxy: TCP to kode-gopherd-egress:3128 opens and https-direct:
#                    TCP 443 to storage.googleapis.com stays closed
#     http-closed    TCP 80 to storage.googleapis.com stays closed (it is open on the internet)
#     metadata-closed  TCP 80 to the metadata server 169.254.169.254 stays closed
#   plain pod (no kode-gopher label; like the next, scheduled as the sandboxes are):
#     router-closed  TCP to sandbox-router-svc:8080 stays closed (the router's own policy)
#   daemon-labelled pod (app.kubernetes.io/name: kode-gopherd, never Ready, so no Service sends it
#   traffic): router-open: TCP to sandbox-router-svc:8080 opens, so router-closed means the policy
#   and not a router that is down.
# Exit 0 when every check passes, 1 when one fails, 2 on a usage or cluster error.
#
# Usage: scripts/k8s-egress-probe.sh NAMESPACE [--team|--no-team] [--image IMAGE]
#                                    [--runtime-class NAME] [--gvisor-nodes VALUE] [--dry-run]
#   --team, --no-team  which egress the sandboxes should have (default: --team when the Service
#                      kode-gopherd-egress exists in NAMESPACE; --no-team in a dry run)
#   --image IMAGE      the probe pods' image (default: the SandboxTemplate's, which has bash,
#                      getent and timeout, and which the nodes can already pull)
#   --runtime-class NAME, --gvisor-nodes VALUE
#                      the pods' runtimeClassName and GKE Sandbox node label value (default: the
#                      template's; in a dry run, none)
#   --dry-run          print the pods' manifests and the kubectl commands, contact no cluster
#   KUBECTL            the kubectl to use (default: kubectl); its current context is the cluster
set -euo pipefail

TEMPLATE=kode-gopher-sandbox
POLICY=kode-gopher-sandbox-network-policy
HASH_LABEL=agents.x-k8s.io/sandbox-template-ref-hash
EGRESS_SERVICE=kode-gopherd-egress
EGRESS_PORT=3128
ROUTER=sandbox-router-svc
ROUTER_PORT=8080
GOOGLE_HOST=storage.googleapis.com
METADATA_ADDRESS=169.254.169.254
POD_TIMEOUT_S=180

usage() {
  echo "usage: $0 NAMESPACE [--team|--no-team] [--image IMAGE] [--runtime-class NAME]" \
    "[--gvisor-nodes VALUE] [--dry-run]" >&2
  exit 2
}
if [ $# -lt 1 ] || [[ $1 == -* ]]; then usage; fi
namespace=$1
shift
team="" image="" runtime_class="-" gvisor_nodes="-" dry_run=false
while [ $# -gt 0 ]; do
  case $1 in
    --team) team=true ;;
    --no-team) team=false ;;
    --image) [ $# -ge 2 ] || usage; image=$2; shift ;;
    --runtime-class) [ $# -ge 2 ] || usage; runtime_class=$2; shift ;;
    --gvisor-nodes) [ $# -ge 2 ] || usage; gvisor_nodes=$2; shift ;;
    --dry-run) dry_run=true ;;
    *) usage ;;
  esac
  shift
done
kubectl=${KUBECTL:-kubectl}
run_id=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')

# k ARGS...: kubectl in the namespace; in a dry run, printed instead of run.
k() {
  if $dry_run; then
    echo "# would run: $kubectl -n $namespace $*"
  else
    "$kubectl" -n "$namespace" "$@"
  fi
}

# What the live install says: the label the controller's policy selects sandbox pods by, the
# template's image and gVisor settings, whether the team overlays' egress proxy is there.
# ("-": not given.)
hash="HASH"
if $dry_run; then
  [ "$runtime_class" != - ] || runtime_class=""
  [ "$gvisor_nodes" != - ] || gvisor_nodes=""
  k get networkpolicy "$POLICY" -o "jsonpath={.spec.podSelector.matchLabels}"
  k get sandboxtemplate "$TEMPLATE" -o "jsonpath={.spec.podTemplate.spec}"
  image=${image:-$TEMPLATE}
  team=${team:-false}
else
  command -v "$kubectl" >/dev/null || { echo "k8s-egress-probe: no $kubectl (set KUBECTL)" >&2; exit 2; }
  hash=$(k get networkpolicy "$POLICY" \
           -o "jsonpath={.spec.podSelector.matchLabels.agents\.x-k8s\.io/sandbox-template-ref-hash}") ||
    { echo "k8s-egress-probe: no NetworkPolicy $POLICY in $namespace" >&2; exit 2; }
  if [ -z "$hash" ]; then
    echo "k8s-egress-probe: $POLICY selects no $HASH_LABEL; has the controller made it" \
      "(the template's networkPolicyManagement: Managed)?" >&2
    exit 2
  fi
  spec=".spec.podTemplate.spec"
  [ -n "$image" ] || image=$(k get sandboxtemplate "$TEMPLATE" -o "jsonpath={$spec.containers[0].image}")
  [ "$runtime_class" != - ] ||
    runtime_class=$(k get sandboxtemplate "$TEMPLATE" -o "jsonpath={$spec.runtimeClassName}")
  [ "$gvisor_nodes" != - ] ||
    gvisor_nodes=$(k get sandboxtemplate "$TEMPLATE" \
                     -o "jsonpath={$spec.nodeSelector.sandbox\.gke\.io/runtime}")
  if [ -z "$team" ]; then
    if k get service "$EGRESS_SERVICE" >/dev/null 2>&1; then team=true; else team=false; fi
  fi
fi

# The checks a pod runs, in bash (the sandbox image has bash, getent and timeout): one line each,
# "PASS name: ..." or "FAIL name: ...". A "closed" check needs the name to resolve first, or a
# closed port would only mean a missing DNS answer. (Single quotes: expanded in the pod.)
# shellcheck disable=SC2016
checks_prelude='resolves() { [[ $1 =~ ^[0-9.]+$ ]] || getent hosts "$1" >/dev/null 2>&1; }
opens() { timeout 5 bash -c ": >/dev/tcp/$1/$2" 2>/dev/null; }
open() {
  if opens "$2" "$3"; then echo "PASS $1: $2:$3 opens"; else echo "FAIL $1: $2:$3 does not open"; fi
}
closed() {
  if ! resolves "$2"; then echo "FAIL $1: $2 does not resolve, so $2:$3 cannot be tried"
  elif opens "$2" "$3"; then echo "FAIL $1: $2:$3 opens; the policy should close it"
  else echo "PASS $1: $2:$3 is closed"; fi
}'
sandbox_checks="$checks_prelude
if resolves $GOOGLE_HOST; then echo \"PASS dns: $GOOGLE_HOST resolves\"
else echo \"FAIL dns: $GOOGLE_HOST does not resolve\"; fi"
if $team; then
  sandbox_checks+="
open egress-proxy $EGRESS_SERVICE $EGRESS_PORT
closed https-direct $GOOGLE_HOST 443"
else
  sandbox_checks+="
open https-out $GOOGLE_HOST 443"
fi
sandbox_checks+="
closed http-closed $GOOGLE_HOST 80
closed metadata-closed $METADATA_ADDRESS 80"
plain_checks="$checks_prelude
closed router-closed $ROUTER $ROUTER_PORT"
daemon_checks="$checks_prelude
open router-open $ROUTER $ROUTER_PORT"

# pod_manifest ROLE LABELS(yaml lines) SCHEDULING(yaml lines) READINESS(yaml lines) CHECKS
pod_manifest() {
  local role=$1 labels=$2 scheduling=$3 readiness=$4 checks=$5
  cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: kg-egress-probe-$role-$run_id
  namespace: $namespace
  labels:
    kode-gopher/egress-probe: "$run_id"
$labels
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  activeDeadlineSeconds: $POD_TIMEOUT_S
$scheduling
  securityContext:
    runAsNonRoot: true
    runAsUser: 1000
    runAsGroup: 1000
    seccompProfile:
      type: RuntimeDefault
  containers:
  - name: probe
    image: $image
    imagePullPolicy: IfNotPresent
    command:
    - bash
    - -c
    args:
    - |
      ${checks//$'\n'/$'\n'      }
$readiness
    resources:
      requests:
        cpu: 10m
        memory: 32Mi
      limits:
        cpu: 200m
        memory: 128Mi
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities:
        drop:
        - ALL
EOF
}

# All three pods run where the sandboxes run (the template's runtimeClassName and GKE Sandbox
# scheduling): those nodes have already pulled the sandbox image, a large one.
sandbox_scheduling=""
[ -z "$runtime_class" ] || sandbox_scheduling+="  runtimeClassName: $runtime_class"$'\n'
if [ -n "$gvisor_nodes" ]; then
  sandbox_scheduling+="  nodeSelector:
    sandbox.gke.io/runtime: $gvisor_nodes
  tolerations:
  - key: sandbox.gke.io/runtime
    operator: Equal
    value: $gvisor_nodes
    effect: NoSchedule"
fi
# Never Ready: the kode-gopherd label would otherwise make it an endpoint of the team overlays'
# Services for the few seconds it runs.
never_ready="    readinessProbe:
      exec:
        command:
        - 'false'
      periodSeconds: 1"
roles=(sandbox plain daemon)
manifests=(
  "$(pod_manifest sandbox "    $HASH_LABEL: \"$hash\"" "${sandbox_scheduling%$'\n'}" "" "$sandbox_checks")"
  "$(pod_manifest plain "" "${sandbox_scheduling%$'\n'}" "" "$plain_checks")"
  "$(pod_manifest daemon "    app.kubernetes.io/name: kode-gopherd" "${sandbox_scheduling%$'\n'}" \
       "$never_ready" "$daemon_checks")"
)
# Empty lines (a label or scheduling block left out) are dropped; the checks have none.
for i in "${!manifests[@]}"; do manifests[i]=$(sed '/^$/d' <<<"${manifests[i]}"); done

if $dry_run; then
  echo "# k8s-egress-probe: dry run in namespace $namespace, $($team && echo team || echo public)" \
    "egress; nothing is sent to a cluster"
  for i in "${!roles[@]}"; do
    echo "---"
    echo "${manifests[i]}"
    echo "# would run: $kubectl -n $namespace apply -f -   (the ${roles[i]} pod above)"
  done
  for role in "${roles[@]}"; do
    k wait "pod/kg-egress-probe-$role-$run_id" "--for=jsonpath={.status.phase}=Succeeded" \
      "--timeout=${POD_TIMEOUT_S}s"
    k logs "pod/kg-egress-probe-$role-$run_id"
  done
  k delete pod -l "kode-gopher/egress-probe=$run_id" --wait=false
  exit 0
fi

cleanup() { k delete pod -l "kode-gopher/egress-probe=$run_id" --wait=false >/dev/null 2>&1 || true; }
trap cleanup EXIT
echo "k8s-egress-probe: namespace $namespace, $($team && echo "team overlays (egress through" \
  "$EGRESS_SERVICE:$EGRESS_PORT)" || echo "public HTTPS egress"), image $image" >&2
for i in "${!roles[@]}"; do
  k apply -f - >/dev/null <<<"${manifests[i]}"
done
failed=0 passed=0
for role in "${roles[@]}"; do
  pod=kg-egress-probe-$role-$run_id
  if ! k wait "pod/$pod" "--for=jsonpath={.status.phase}=Succeeded" "--timeout=${POD_TIMEOUT_S}s" \
       >/dev/null 2>&1; then
    echo "FAIL $role-pod: $pod did not finish in ${POD_TIMEOUT_S}s" \
      "(kubectl -n $namespace describe pod $pod: image pull, scheduling, admission)"
    failed=$((failed + 1))
    continue
  fi
  lines=$(k logs "pod/$pod" | grep -E '^(PASS|FAIL) ' || true)
  if [ -z "$lines" ]; then
    echo "FAIL $role-pod: $pod printed no result"
    failed=$((failed + 1))
    continue
  fi
  echo "$lines"
  passed=$((passed + $(grep -c '^PASS ' <<<"$lines" || true)))
  failed=$((failed + $(grep -c '^FAIL ' <<<"$lines" || true)))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
