#!/usr/bin/env python3
"""Lints every rendered kustomization under manifests/ with kube-score (kube-score.sh: pinned,
built from the Go module proxy), offline: every default check, warnings fail too, against the
oldest Kubernetes docs/kubernetes.md supports. A check a manifest means to fail is named in its
object's `kube-score/ignore` annotation, and this test requires a comment in that manifest's
file saying why, per check (a line `#   <check-id>...: <reason>`).

kube-score reads the built-in kinds only (Deployment, Service, NetworkPolicy, PDB, ...), so each
SandboxTemplate's pod template is handed to it as the Pod agent-sandbox makes of it, with the
checks SANDBOX_POD_IGNORES names (and says why) left out.

Usage: lint-manifests.py   (GO: the go command kube-score.sh and kustomize.sh build with)
Prints one line per kustomization and 'N passed, N failed'; exit 1 on any failure.
"""

import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
KUSTOMIZATIONS = ["base", "overlays/daemon", "overlays/gvisor", "overlays/gke", "overlays/team",
                  "overlays/team/tls", "overlays/team/gke"]
# The minimum docs/kubernetes.md states.
KUBERNETES_VERSION = "v1.36"
IGNORE_ANNOTATION = "kube-score/ignore"
# What kube-score reports of the sandbox pods and we keep, and why. Their manifest is a
# SandboxTemplate, so the reasons live here rather than in an annotation of an object kube-score
# would read.
SANDBOX_POD_IGNORES = {
    "container-image-pull-policy": "the image is pinned by digest, so IfNotPresent runs the very "
                                   "image named, and a warm pool's pods start without a registry "
                                   "round trip",
    "container-security-context-user-group-id": "uid and gid 1000 are the image's user gopher, "
                                                "the one every local sandbox runs programs as "
                                                "(sandbox/Dockerfile)",
    "pod-networkpolicy": "the template's own spec.networkPolicy, which agent-sandbox turns into a "
                         "NetworkPolicy per sandbox, is invisible to kube-score; test-manifests.py "
                         "checks it",
    "pod-probes-identical": "both probe GET / of the sandbox server, with different timing: "
                            "readiness at once, liveness only after a minute of silence "
                            "(manifests/base/sandbox-template.yaml says why)",
}


def run(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"lint-manifests.py: {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


def unexplained_ignores():
    """Every kube-score/ignore annotation in manifests/ whose checks its file does not explain."""
    problems = []
    for directory, _, files in os.walk(os.path.join(REPO, "manifests")):
        for name in sorted(files):
            if not name.endswith(".yaml"):
                continue
            path = os.path.join(directory, name)
            text = open(path).read()
            comments = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("#"))
            for document in yaml.safe_load_all(text):
                if not isinstance(document, dict):
                    continue
                annotations = (document.get("metadata") or {}).get("annotations") or {}
                for check in filter(None, annotations.get(IGNORE_ANNOTATION, "").split(",")):
                    check = check.strip()
                    if not re.search(rf"#\s+(\S+,\s*)*{re.escape(check)}\b[^\n]*:\s*\S", comments):
                        problems.append(f"{os.path.relpath(path, REPO)}: ignores kube-score's "
                                        f"{check} without a comment saying why ('#   {check}: ...')")
    return problems


def with_sandbox_pods(rendered):
    """The rendered objects plus one Pod per SandboxTemplate, as agent-sandbox makes it."""
    documents = [d for d in yaml.safe_load_all(rendered) if d]
    for document in list(documents):
        if document.get("kind") != "SandboxTemplate":
            continue
        template = document["spec"]["podTemplate"]
        metadata = template.get("metadata") or {}
        documents.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": document["metadata"]["name"] + "-pod",
                         "namespace": document["metadata"].get("namespace"),
                         "labels": metadata.get("labels") or {},
                         "annotations": {IGNORE_ANNOTATION: ",".join(SANDBOX_POD_IGNORES)}},
            "spec": template["spec"]})
    return yaml.safe_dump_all(documents), sum(1 for d in documents if d.get("kind") == "Pod")


def main():
    kustomize = run([os.path.join(HERE, "kustomize.sh")]).strip()
    kube_score = run([os.path.join(HERE, "kube-score.sh")]).strip()
    passed = failed = 0
    for name in KUSTOMIZATIONS:
        rendered, pods = with_sandbox_pods(run([kustomize, "build", os.path.join(REPO, "manifests", name)]))
        result = subprocess.run([kube_score, "score", "--output-format", "ci", "--exit-one-on-warning",
                                 "--kubernetes-version", KUBERNETES_VERSION, "-"],
                                input=rendered, capture_output=True, text=True)
        findings = [line for line in result.stdout.splitlines()
                    if line.startswith("[WARNING]") or line.startswith("[CRITICAL]")]
        checked = sum(1 for line in result.stdout.splitlines() if line.startswith("[OK]"))
        if result.returncode != 0 or findings:
            failed += 1
            print(f"FAIL {name} (kube-score exit {result.returncode})")
            for line in findings or (result.stdout + result.stderr).splitlines():
                print(f"  {line}")
        elif checked == 0 or pods == 0 or "-pod/" not in result.stdout:
            failed += 1
            print(f"FAIL {name}: kube-score checked nothing:\n{result.stdout}{result.stderr}")
        else:
            passed += 1
            print(f"ok   {name}: {checked} checks passed, the sandbox pod's included")
    problems = unexplained_ignores()
    for problem in problems:
        print(f"FAIL {problem}")
    if not problems:
        print("ok   every kube-score/ignore says why")
    passed += 0 if problems else 1
    failed += 1 if problems else 0
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
