#!/usr/bin/env python3
"""Lints every rendered kustomization under manifests/ with kube-score (kube-score.sh: pinned,
built from the Go module proxy), offline: every default check, warnings fail too, against the
oldest Kubernetes docs/kubernetes.md supports. A check a manifest means to fail is named in its
object's `kube-score/ignore` annotation, and this test requires a comment in that manifest's
file saying why, per check (a line `#   <check-id>...: <reason>`).

kube-score reads the built-in kinds only (Deployment, Service, NetworkPolicy, PDB, ...): the
sandbox pods' template is a SandboxTemplate, which test-manifests.py checks instead.

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


def main():
    kustomize = run([os.path.join(HERE, "kustomize.sh")]).strip()
    kube_score = run([os.path.join(HERE, "kube-score.sh")]).strip()
    passed = failed = 0
    for name in KUSTOMIZATIONS:
        rendered = run([kustomize, "build", os.path.join(REPO, "manifests", name)])
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
        elif checked == 0:
            failed += 1
            print(f"FAIL {name}: kube-score checked nothing:\n{result.stdout}{result.stderr}")
        else:
            passed += 1
            print(f"ok   {name}: {checked} checks passed")
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
