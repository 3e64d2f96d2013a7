#!/usr/bin/env bash
# Starts the k8s test cluster on loopback, in the background, and returns once every part is
# healthy (exit 0) or one failed (exit 1, with the reason and the log tail on stderr):
#   etcd, kube-apiserver (token and client-certificate users), kube-controller-manager (garbage
#   collector, service accounts, namespaces), the agent-sandbox CRDs, the agent-sandbox controller
#   (--extensions), the kubelet player (runs one kode-gopher-sandbox per pod on 127.0.0.N) and the
#   sandbox-router (pod-IP cache on, loopback pod IPs allowed).
# All of it runs under one supervisor (kcluster supervise) that stops it on stop-cluster.sh, on
# SIGTERM, or when the process --parent-pid names exits (default: the caller of this script).
#
# Usage: tests/k8s/start-cluster.sh <state-dir> [--parent-pid PID] [--tools-dir DIR]
#                                               [--sandbox-server PATH] [--router-manifests FILE]
#   --tools-dir       where build-cluster-tools.sh built (default $KG_K8S_TOOLS_DIR, else
#                     <repo>/build/k8s-tools)
#   --sandbox-server  kode-gopher-sandbox (default $KG_SANDBOX_SERVER, else
#                     <repo>/build/sandbox/server/kode-gopher-sandbox)
#   --parent-pid      0 keeps the cluster until stop-cluster.sh
#   --router-manifests  rendered manifests (e.g. kustomize build manifests/overlays/daemon),
#                     applied before the router starts: the router runs with their Deployment
#                     sandbox-router's arguments (bind addresses made loopback ones; kcluster's
#                     router_args.go), signed in as its ServiceAccount (<state-dir>/kubeconfig-router,
#                     router_account.go). Without: a router over every namespace, as the admin. With it and $KG_K8S_ROUTER_COMMAND, that command runs the router
#                     (the Deployment's image in $KG_IMAGE, the arguments after the command).
# $KG_K8S_POD_COMMAND, when set, runs each pod instead of the sandbox server
# (tests/k8s/README.md).
# Writes <state-dir>/env (KEY=VALUE lines, see README.md), kubeconfig (token user),
# kubeconfig-cert (client-certificate user), kubeconfig-exec (exec-plugin user), pki/,
# logs/, pods/ and supervisor.pid. The state dir must not hold a running cluster.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
usage() {
	echo "usage: $0 <state-dir> [--parent-pid PID] [--tools-dir DIR] [--sandbox-server PATH] [--router-manifests FILE]" >&2
	exit 2
}
[[ $# -ge 1 ]] || usage
state_arg=$1
shift
parent_pid=$PPID
router_manifests=
tools=${KG_K8S_TOOLS_DIR:-$repo/build/k8s-tools}
sandbox_server=${KG_SANDBOX_SERVER:-$repo/build/sandbox/server/kode-gopher-sandbox}
while [[ $# -gt 0 ]]; do
	case $1 in
	--parent-pid) parent_pid=${2:?}; shift 2 ;;
	--tools-dir) tools=${2:?}; shift 2 ;;
	--sandbox-server) sandbox_server=${2:?}; shift 2 ;;
	--router-manifests) router_manifests=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done

for tool in etcd kube-apiserver kube-controller-manager agent-sandbox-controller sandbox-router kcluster; do
	if [[ ! -x "$tools/bin/$tool" ]]; then
		echo "start-cluster: $tools/bin/$tool is missing; run tests/k8s/build-cluster-tools.sh $tools first" >&2
		exit 1
	fi
done
if [[ ! -x "$sandbox_server" ]]; then
	echo "start-cluster: kode-gopher-sandbox not found at $sandbox_server; build it (ninja -C build sandbox/server/kode-gopher-sandbox) or pass --sandbox-server" >&2
	exit 1
fi
tools=$(cd "$tools" && pwd)
if [[ -n "$router_manifests" ]]; then
	if [[ ! -f "$router_manifests" ]]; then
		echo "start-cluster: --router-manifests $router_manifests does not exist" >&2
		exit 1
	fi
	router_manifests=$(cd "$(dirname "$router_manifests")" && pwd)/$(basename "$router_manifests")
fi
sandbox_server=$(cd "$(dirname "$sandbox_server")" && pwd)/$(basename "$sandbox_server")
crd_dir=$tools/crds

mkdir -p "$state_arg"
state=$(cd "$state_arg" && pwd)
if [[ -f "$state/supervisor.pid" ]] && grep -q kcluster "/proc/$(cat "$state/supervisor.pid")/cmdline" 2>/dev/null; then
	echo "start-cluster: a cluster is already running from $state (supervisor pid $(cat "$state/supervisor.pid")); stop it with tests/k8s/stop-cluster.sh $state" >&2
	exit 1
fi
rm -rf "$state/etcd" "$state/logs" "$state/pods" "$state/pki" "$state/apiserver-certs" "$state/kcm-certs" \
	"$state/ready" "$state/failed" "$state/kubelet.ready" "$state/supervisor.pid"
mkdir -p "$state/pki" "$state/logs" "$state/pods"

# --- Certificates and credentials (openssl) ---------------------------------------------------
pki=$state/pki
ossl() { openssl "$@" 2>>"$state/logs/openssl.log"; }
ossl req -x509 -newkey rsa:2048 -nodes -days 3 -subj "/CN=kcluster-ca" \
	-keyout "$pki/ca.key" -out "$pki/ca.crt"
# issue <name> <subject> <extensions>: a key and a certificate signed by the CA.
issue() {
	ossl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$pki/$1.key" -out "$pki/$1.csr"
	printf '%s\n' "$3" >"$pki/$1.ext"
	ossl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
		-days 3 -extfile "$pki/$1.ext" -out "$pki/$1.crt"
	rm -f "$pki/$1.csr" "$pki/$1.ext"
}
issue apiserver "/CN=kube-apiserver" \
	"subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.96.0.1
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment"
# The client-certificate user: CN is the user name, O the group (system:masters: cluster admin).
issue admin "/CN=kcluster-cert-admin/O=system:masters" \
	"extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment"
ossl genrsa -out "$pki/sa.key" 2048
ossl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub"
token=$(openssl rand -hex 24)
# The token user: token,user,uid,"group".
echo "$token,kcluster-token-admin,kcluster-token-admin,\"system:masters\"" >"$pki/tokens.csv"
chmod 600 "$pki"/*.key "$pki/tokens.csv"

# --- Ports ---------------------------------------------------------------------------------------
mapfile -t ports < <("$tools/bin/kcluster" free-ports 9)
if [[ ${#ports[@]} -ne 9 ]]; then
	echo "start-cluster: could not find 9 free loopback ports (kcluster free-ports 9 gave ${#ports[@]})" >&2
	exit 1
fi
api_url=https://127.0.0.1:${ports[0]}
ca_b64=$(base64 -w0 "$pki/ca.crt")

# --- Kubeconfigs -------------------------------------------------------------------------------
cat >"$state/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kcluster
  cluster:
    server: $api_url
    certificate-authority-data: $ca_b64
users:
- name: kcluster-token-admin
  user:
    token: $token
contexts:
- name: kcluster
  context:
    cluster: kcluster
    user: kcluster-token-admin
    namespace: default
current-context: kcluster
EOF
cat >"$state/kubeconfig-cert" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kcluster
  cluster:
    server: $api_url
    certificate-authority: $pki/ca.crt
users:
- name: kcluster-cert-admin
  user:
    client-certificate: $pki/admin.crt
    client-key: $pki/admin.key
contexts:
- name: kcluster-cert
  context:
    cluster: kcluster
    user: kcluster-cert-admin
current-context: kcluster-cert
EOF
# The exec-plugin user: client-go runs `kcluster credential`, which prints an ExecCredential with
# the admin token (and logs each call to logs/exec-credential.log).
cat >"$state/kubeconfig-exec" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kcluster
  cluster:
    server: $api_url
    certificate-authority: $pki/ca.crt
users:
- name: kcluster-exec-admin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $tools/bin/kcluster
      args: [credential, --state-dir, $state]
      interactiveMode: Never
contexts:
- name: kcluster-exec
  context:
    cluster: kcluster
    user: kcluster-exec-admin
current-context: kcluster-exec
EOF
chmod 600 "$state/kubeconfig" "$state/kubeconfig-cert" "$state/kubeconfig-exec"

cat >"$state/env" <<EOF
# The k8s test cluster started by tests/k8s/start-cluster.sh; KEY=VALUE, no quoting.
KG_K8S_STATE_DIR=$state
KG_K8S_API_URL=$api_url
KG_K8S_API_PORT=${ports[0]}
KG_K8S_KUBECONFIG=$state/kubeconfig
KG_K8S_KUBECONFIG_CERT=$state/kubeconfig-cert
KG_K8S_KUBECONFIG_EXEC=$state/kubeconfig-exec
KG_K8S_CONTEXT=kcluster
KG_K8S_CERT_CONTEXT=kcluster-cert
KG_K8S_EXEC_CONTEXT=kcluster-exec
KG_K8S_TOKEN=$token
KG_K8S_TOKEN_USER=kcluster-token-admin
KG_K8S_CA_FILE=$pki/ca.crt
KG_K8S_CLIENT_CERT_FILE=$pki/admin.crt
KG_K8S_CLIENT_KEY_FILE=$pki/admin.key
KG_K8S_CERT_USER=kcluster-cert-admin
KG_K8S_ROUTER_URL=http://127.0.0.1:${ports[1]}
KG_K8S_ROUTER_ADDR=127.0.0.1:${ports[1]}
KG_K8S_ROUTER_METRICS_ADDR=127.0.0.1:${ports[2]}
KG_K8S_ROUTER_PROBE_ADDR=127.0.0.1:${ports[3]}
KG_K8S_CONTROLLER_METRICS_ADDR=127.0.0.1:${ports[4]}
KG_K8S_CONTROLLER_PROBE_ADDR=127.0.0.1:${ports[5]}
KG_K8S_KCM_PORT=${ports[6]}
KG_K8S_ETCD_URL=http://127.0.0.1:${ports[7]}
KG_K8S_ETCD_PEER_URL=http://127.0.0.1:${ports[8]}
KG_K8S_NODE_NAME=kcluster-node
KG_K8S_SANDBOX_SERVER=$sandbox_server
KG_K8S_CRD_DIR=$crd_dir
KG_K8S_BIN_DIR=$tools/bin
KG_K8S_LOG_DIR=$state/logs
KG_K8S_PODS_DIR=$state/pods
KG_K8S_ROUTER_MANIFESTS=$router_manifests
KG_K8S_ROUTER_COMMAND=${KG_K8S_ROUTER_COMMAND:-}
EOF

# --- The supervisor ------------------------------------------------------------------------------
# setsid: its own process group, so stop-cluster.sh can end whatever is left with one signal.
setsid "$tools/bin/kcluster" supervise --state-dir "$state" --parent-pid "$parent_pid" \
	</dev/null >"$state/logs/supervisor.log" 2>&1 &
supervisor=$!
echo "$supervisor" >"$state/supervisor.pid"
echo "KG_K8S_SUPERVISOR_PID=$supervisor" >>"$state/env"

deadline=$((SECONDS + 120))
while [[ ! -f "$state/ready" ]]; do
	if [[ -f "$state/failed" ]] || ! kill -0 "$supervisor" 2>/dev/null; then
		echo "start-cluster: the cluster in $state failed to start:" >&2
		if [[ -f "$state/failed" ]]; then
			cat "$state/failed" >&2
		else
			echo "--- last lines of $state/logs/supervisor.log:" >&2
			tail -n 20 "$state/logs/supervisor.log" >&2
		fi
		exit 1
	fi
	if ((SECONDS > deadline)); then
		echo "start-cluster: the cluster in $state was not ready within 120 s; stopping it" >&2
		tail -n 20 "$state/logs/supervisor.log" >&2
		"$here/stop-cluster.sh" "$state" >&2 || true
		exit 1
	fi
	sleep 0.1
done
echo "start-cluster: ready; source $state/env (API $api_url, router http://127.0.0.1:${ports[1]})"
