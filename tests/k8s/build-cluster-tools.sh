#!/usr/bin/env bash
# Builds the programs of the k8s test cluster into <out-dir>/bin, from the Go module proxy only:
#   etcd                      go.etcd.io/etcd/server/v3       (tools/etcd)
#   kube-apiserver            k8s.io/kubernetes               (tools/kubernetes)
#   kube-controller-manager   k8s.io/kubernetes               (tools/kubernetes; only its garbage
#                             collector, service-account and namespace controllers are run)
#   kubectl                   k8s.io/kubernetes               (tools/kubernetes; the manifests'
#                             server-side dry run, tests/manifests/validate-against-cluster.sh)
#   agent-sandbox-controller  sigs.k8s.io/agent-sandbox       (tools/agent-sandbox)
#   sandbox-router            sigs.k8s.io/agent-sandbox       (tools/agent-sandbox)
#   kcluster                  this folder's own Go programs   (cluster/: supervisor, kubelet
#                             player, manifest applier, exec credential, end-to-end check)
# and copies the agent-sandbox CRDs of the pinned module into <out-dir>/crds.
# Each tool is pinned by its committed go.mod/go.sum and built with -mod=readonly, so a build never
# resolves a new version. A tool is rebuilt only when its stamp (the Go version plus the hash of its
# module files and sources) changed, so running this again is cheap.
#
# Usage: tests/k8s/build-cluster-tools.sh <out-dir>
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: $0 <out-dir>" >&2
	exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$1/bin" "$1/stamps"
out=$(cd "$1" && pwd)

# shellcheck source=../../scripts/go-env.sh
. "$repo/scripts/go-env.sh"
export GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0

k8s_version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$here/tools/kubernetes/go.mod")
go_version=$(go version)

# stamp_of <module-dir>: what a build of that module depends on, as one hash.
stamp_of() {
	(
		cd "$1"
		echo "$go_version"
		find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 | sort -z | xargs -0 sha256sum
	) | sha256sum | cut -d' ' -f1
}

# build <name> <module-dir> <package> [go build flags...]
build() {
	local name=$1 dir=$2 pkg=$3
	shift 3
	local stamp
	stamp=$(stamp_of "$dir")
	if [[ -x "$out/bin/$name" && -f "$out/stamps/$name" && "$(cat "$out/stamps/$name")" == "$stamp" ]]; then
		echo "$name: up to date"
		return
	fi
	local start=$SECONDS
	echo "$name: building $pkg ($(cd "$dir" && go list -m -f '{{.Path}}@{{.Version}}' "$(module_of "$dir" "$pkg")"))"
	rm -f "$out/stamps/$name"
	if ! (cd "$dir" && nice go build -trimpath "$@" -o "$out/bin/$name.tmp" "$pkg"); then
		echo "$name: build of $pkg in $dir failed" >&2
		exit 1
	fi
	mv "$out/bin/$name.tmp" "$out/bin/$name"
	echo "$stamp" >"$out/stamps/$name"
	echo "$name: built in $((SECONDS - start)) s"
}

# module_of <module-dir> <package>: the module that provides the package (the main module for ./...).
module_of() {
	(cd "$1" && go list -f '{{.Module.Path}}' "$2")
}

build etcd "$here/tools/etcd" .
k8s_ldflags="-X k8s.io/component-base/version.gitVersion=$k8s_version
	-X k8s.io/component-base/version.gitMajor=$(echo "${k8s_version#v}" | cut -d. -f1)
	-X k8s.io/component-base/version.gitMinor=$(echo "${k8s_version#v}" | cut -d. -f2)
	-X k8s.io/component-base/version.gitTreeState=clean"
build kube-apiserver "$here/tools/kubernetes" k8s.io/kubernetes/cmd/kube-apiserver -ldflags "$k8s_ldflags"
build kube-controller-manager "$here/tools/kubernetes" k8s.io/kubernetes/cmd/kube-controller-manager -ldflags "$k8s_ldflags"
build kubectl "$here/tools/kubernetes" k8s.io/kubernetes/cmd/kubectl -ldflags "$k8s_ldflags"
build agent-sandbox-controller "$here/tools/agent-sandbox" sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller
build sandbox-router "$here/tools/agent-sandbox" sigs.k8s.io/agent-sandbox/sandbox-router/cmd
if [[ -f "$here/cluster/go.mod" ]]; then
	build kcluster "$here/cluster" ./cmd/kcluster
fi

# The agent-sandbox CRDs of the pinned module, for start-cluster.sh to apply.
module_dir=$(cd "$here/tools/agent-sandbox" && go list -m -f '{{.Dir}}' sigs.k8s.io/agent-sandbox)
rm -rf "$out/crds"
mkdir -p "$out/crds"
cp "$module_dir"/k8s/crds/*.yaml "$out/crds/"
chmod 644 "$out"/crds/*.yaml
echo "agent-sandbox CRDs: $(ls "$out/crds" | tr '\n' ' ')"
