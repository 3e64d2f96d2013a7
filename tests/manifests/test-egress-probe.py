#!/usr/bin/env python3
"""scripts/k8s-egress-probe.sh (docs/kubernetes.md, "Network policy is enforced only where the
cluster enforces it") as far as a machine without a cluster can check it:

- shellcheck finds nothing in it;
- its dry run (public and team egress, and with GKE Sandbox scheduling) prints three Pods that pass the OpenAPI schemas of
  kube-apiserver v1.36.3 (builtin_schemas.py, as the rendered overlays do), carry the labels each
  check needs (the sandbox policy's hash label; none of kode-gopher's; the daemon's, never Ready),
  are hardened enough for a namespace enforcing Pod Security "restricted", and aim at the router
  Service and the team egress Service the rendered overlays define;
- each pod's own check script, run here with bash in a network namespace of its own whose
  /etc/hosts sends the names to loopback, says PASS where the port it wants open is open and the
  ones it wants closed are closed, and FAIL when one of those is the other way round or a name does
  not resolve.

Usage: test-egress-probe.py   (GO: the go command for kustomize.sh and the schema download)
Prints one line per check and 'N passed, N failed'; exit 1 on any failure.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import yaml

from builtin_schemas import BuiltinSchemas

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROBE = os.path.join(REPO, "scripts", "k8s-egress-probe.sh")
HASH_LABEL = "agents.x-k8s.io/sandbox-template-ref-hash"
NAME_LABEL = "app.kubernetes.io/name"
# A TCP listener on 127.0.0.1:PORT for the pod script to find open.
LISTEN = ("import socket, sys, time; s = socket.socket(); "
          "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
          "s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); time.sleep(60)")


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, condition, name, detail=""):
        if condition:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}{': ' + detail if detail else ''}")
        return condition


def dry_run(*flags):
    result = subprocess.run([PROBE, "kode-gopher", "--dry-run", *flags], capture_output=True,
                            text=True)
    if result.returncode != 0:
        sys.exit(f"test-egress-probe.py: {PROBE} --dry-run {' '.join(flags)} failed:\n{result.stderr}")
    pods = {}
    for document in yaml.safe_load_all(result.stdout):
        if document:
            role = document["metadata"]["name"].split("-")[3]
            pods[role] = document
    return pods, result.stdout


def rendered():
    """{Service name: port} of the daemon and team overlays, and the gke overlay's sandbox pod
    spec."""
    kustomize = subprocess.run([os.path.join(HERE, "kustomize.sh")], capture_output=True, text=True,
                               check=True).stdout.strip()
    services, gke_pod = {}, None
    for overlay in ("overlays/daemon", "overlays/team", "overlays/gke"):
        text = subprocess.run([kustomize, "build", os.path.join(REPO, "manifests", overlay)],
                              capture_output=True, text=True, check=True).stdout
        for document in yaml.safe_load_all(text):
            if document and document["kind"] == "Service":
                services[document["metadata"]["name"]] = document["spec"]["ports"][0]["port"]
            if document and document["kind"] == "SandboxTemplate" and overlay == "overlays/gke":
                gke_pod = document["spec"]["podTemplate"]["spec"]
    return services, gke_pod


SCHEDULING = ("runtimeClassName", "nodeSelector", "tolerations")


def script_of(pod):
    container = pod["spec"]["containers"][0]
    assert container["command"] == ["bash", "-c"], container["command"]
    return container["args"][0]


def run_pod_script(script, hosts, listening):
    """The pod's checks, run with bash in a new network namespace (loopback only) whose /etc/hosts
    maps `hosts` to 127.0.0.1, with listeners on the `listening` ports. Returns {check: line}."""
    with tempfile.NamedTemporaryFile("w", suffix=".hosts") as hosts_file:
        hosts_file.write("127.0.0.1 localhost\n" + "".join(f"127.0.0.1 {h}\n" for h in hosts))
        hosts_file.flush()
        runner = ('for port in $1; do python3 -c "$2" "$port" & done; '
                  'for _ in $(seq 50); do ok=1; for port in $1; do '
                  ': 2>/dev/null >/dev/tcp/127.0.0.1/$port || ok=0; done; '
                  '[ $ok = 1 ] && break; sleep 0.1; done; bash -c "$3"')
        result = subprocess.run(
            ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-user", "--uid", "0", "--gid", "0",
             "--ro-bind", "/", "/", "--ro-bind", hosts_file.name, "/etc/hosts", "--dev", "/dev",
             "--proc", "/proc", "--tmpfs", "/tmp", "--die-with-parent", "--",
             "bash", "-c", runner, "_", " ".join(map(str, listening)), LISTEN, script],
            capture_output=True, text=True, timeout=120)
    lines = {}
    for line in result.stdout.splitlines():
        verdict, _, rest = line.partition(" ")
        if verdict in ("PASS", "FAIL"):
            lines[rest.split(":", 1)[0]] = verdict
    if not lines:
        print(f"  (the pod script printed no result: {result.stdout!r} {result.stderr!r})")
    return lines


def check_manifests(r, mode, pods, builtin, services, team):
    r.check(sorted(pods) == ["daemon", "plain", "sandbox"], f"{mode}: three pods",
            f"have {sorted(pods)}")
    for role, pod in pods.items():
        errors = builtin.errors(pod)
        r.check(not errors, f"{mode}: the {role} pod passes the v1.36 Pod schema", "; ".join(errors))
        spec = pod["spec"]
        container = spec["containers"][0]
        security = container.get("securityContext", {})
        r.check(spec.get("automountServiceAccountToken") is False and
                spec["securityContext"].get("runAsNonRoot") is True and
                spec["securityContext"].get("seccompProfile", {}).get("type") == "RuntimeDefault" and
                security.get("allowPrivilegeEscalation") is False and
                security.get("capabilities", {}).get("drop") == ["ALL"] and
                security.get("readOnlyRootFilesystem") is True and
                spec.get("restartPolicy") == "Never" and spec.get("activeDeadlineSeconds"),
                f"{mode}: the {role} pod is short-lived, without a token, and passes Pod Security "
                "restricted")
    labels = {role: pod["metadata"].get("labels", {}) for role, pod in pods.items()}
    r.check(HASH_LABEL in labels["sandbox"] and NAME_LABEL not in labels["sandbox"],
            f"{mode}: the sandbox pod carries the label the sandbox policy selects by")
    r.check(NAME_LABEL not in labels["plain"] and HASH_LABEL not in labels["plain"],
            f"{mode}: the plain pod carries no label a kode-gopher policy admits")
    readiness = pods["daemon"]["spec"]["containers"][0].get("readinessProbe", {})
    r.check(labels["daemon"].get(NAME_LABEL) == "kode-gopherd" and
            readiness.get("exec", {}).get("command") == ["false"],
            f"{mode}: the daemon-labelled pod has the router policy's label and is never Ready")
    router = f"sandbox-router-svc {services['sandbox-router-svc']}"
    r.check(f"closed router-closed {router}" in script_of(pods["plain"]) and
            f"open router-open {router}" in script_of(pods["daemon"]),
            f"{mode}: the router checks aim at the rendered router Service ({router})")
    egress = f"kode-gopherd-egress {services['kode-gopherd-egress']}"
    sandbox = script_of(pods["sandbox"])
    if team:
        r.check(f"open egress-proxy {egress}" in sandbox and
                "closed https-direct storage.googleapis.com 443" in sandbox,
                f"{mode}: the sandbox pod wants the team egress Service ({egress}) open and 443 "
                "closed")
    else:
        r.check("open https-out storage.googleapis.com 443" in sandbox,
                f"{mode}: the sandbox pod wants 443 open")


def check_scripts(r, public, team):
    names = ["storage.googleapis.com", "kode-gopherd-egress", "sandbox-router-svc"]
    cases = [
        ("public, policy holds", script_of(public["sandbox"]), names, [443],
         {"dns": "PASS", "https-out": "PASS", "http-closed": "PASS", "metadata-closed": "PASS"}),
        ("public, port 80 left open", script_of(public["sandbox"]), names, [443, 80],
         {"dns": "PASS", "https-out": "PASS", "http-closed": "FAIL", "metadata-closed": "PASS"}),
        ("public, no DNS answer", script_of(public["sandbox"]), [], [443],
         {"dns": "FAIL", "https-out": "FAIL", "http-closed": "FAIL", "metadata-closed": "PASS"}),
        ("team, policy holds", script_of(team["sandbox"]), names, [3128],
         {"dns": "PASS", "egress-proxy": "PASS", "https-direct": "PASS", "http-closed": "PASS",
          "metadata-closed": "PASS"}),
        ("team, 443 left open", script_of(team["sandbox"]), names, [3128, 443],
         {"dns": "PASS", "egress-proxy": "PASS", "https-direct": "FAIL", "http-closed": "PASS",
          "metadata-closed": "PASS"}),
        ("router closed to a plain pod", script_of(public["plain"]), names, [],
         {"router-closed": "PASS"}),
        ("router open to a plain pod", script_of(public["plain"]), names, [8080],
         {"router-closed": "FAIL"}),
        ("router open to the daemon's pods", script_of(public["daemon"]), names, [8080],
         {"router-open": "PASS"}),
        ("router down", script_of(public["daemon"]), names, [], {"router-open": "FAIL"}),
    ]
    for name, script, hosts, listening, want in cases:
        have = run_pod_script(script, hosts, listening)
        r.check(have == want, f"pod script, {name}", f"have {have}, want {want}")


def main():
    r = Results()
    shellcheck = shutil.which("shellcheck")
    if r.check(shellcheck is not None, "shellcheck is installed",
               "scripts/setup.sh --tests installs it (packaging/debian-test-packages.txt)"):
        result = subprocess.run([shellcheck, PROBE], capture_output=True, text=True)
        r.check(result.returncode == 0, "shellcheck finds nothing in scripts/k8s-egress-probe.sh",
                result.stdout)
    builtin = BuiltinSchemas(os.environ.get("GO") or "go")
    services, gke_pod = rendered()
    public, text = dry_run()
    r.check("would run: kubectl -n kode-gopher get networkpolicy" in text and
            "would run: kubectl -n kode-gopher logs" in text,
            "the dry run prints the kubectl commands it would run")
    team, _ = dry_run("--team")
    check_manifests(r, "public", public, builtin, services, team=False)
    check_manifests(r, "team", team, builtin, services, team=True)
    # As on GKE: the template's runtimeClassName and GKE Sandbox scheduling, on every pod (their
    # nodes have pulled the sandbox image), exactly as the gke overlay's sandboxes have them.
    gke, _ = dry_run("--runtime-class", gke_pod["runtimeClassName"],
                     "--gvisor-nodes", gke_pod["nodeSelector"]["sandbox.gke.io/runtime"])
    check_manifests(r, "gke", gke, builtin, services, team=False)
    want = {key: gke_pod[key] for key in SCHEDULING}
    for role, pod in sorted(gke.items()):
        have = {key: pod["spec"].get(key) for key in SCHEDULING}
        r.check(have == want, f"gke: the {role} pod is scheduled as the gke overlay's sandboxes",
                f"have {have}, want {want}")
    for role, pod in sorted(public.items()):
        r.check(not any(key in pod["spec"] for key in SCHEDULING),
                f"public: the {role} pod has no gVisor scheduling where the template has none")
    check_scripts(r, public, team)
    print(f"{r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
