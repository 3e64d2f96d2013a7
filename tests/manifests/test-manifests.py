#!/usr/bin/env python3
"""Renders every kustomization under manifests/ with the pinned kustomize (kustomize.sh) and checks
what the deployment relies on:

- each overlay has exactly the kinds it should (a daemon Deployment only in the team overlays),
  every namespaced object in the kode-gopher namespace;
- every built-in object (Deployment, Service, ConfigMap, RBAC, ...) against the OpenAPI v3
  schemas kube-apiserver v1.36.3 publishes (builtin_schemas.py);
- the SandboxTemplate and SandboxWarmPool use an API version the pinned agent-sandbox CRDs
  (sigs.k8s.io/agent-sandbox v1.0.1, from the Go module proxy) serve, and every field they set
  is in that version's schema with the right type (what a strict server-side apply rejects);
- the sandbox pod: no service-account token, non-root 1000, drop ALL, no privilege escalation,
  seccomp RuntimeDefault, read-only root, resource requests and limits, readiness probe GET /
  on 8888, a writable volume for each folder sandbox/Dockerfile's entrypoint writes to;
- runtimeClassName gvisor in gvisor and gke only; gke's node selector, toleration and Workload
  Identity annotation;
- the warm pool names the template; the router Service (sandbox-router-svc:8080) reaches the
  router's proxy port; the router's upstream timeouts are >= 300 s; its pod cache has RBAC;
- the template's NetworkPolicy admits the router's pods on 8888 only and lets out DNS and 443
  only (in the team overlays: DNS and the daemon's egress proxy port only), never link-local
  (the metadata server) but GKE's node-local resolvers on port 53;
- the router's own NetworkPolicy admits only the daemon's pods, on 8080; a PodDisruptionBudget
  keeps one router up through drains; the warm pool replaces stale sandboxes at once (Recreate);
- the daemon's Role is exactly the verbs the kubernetes provider needs;
- team mode (overlays/team, team/tls, team/gke): the daemon's Deployment against its own
  kode-gopher.ini, its probes, hardening and single replica, the prometheus.io annotations (https
  where the daemon serves TLS) and, with team/gke's optional managed-prometheus component added,
  its PodMonitoring (team_checks.py).

Usage: test-manifests.py   (GO: the go command for kustomize.sh and the schema downloads)
Prints one line per overlay and 'N passed, N failed'; exit 1 on any failure.
"""

import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("test-manifests.py: needs PyYAML (Debian: apt-get install python3-yaml)")

from builtin_schemas import BuiltinSchemas
from team_checks import POD_MONITORING, POD_MONITORING_API, TEAM_KINDS, check_team, object_key

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
AGENT_SANDBOX = "sigs.k8s.io/agent-sandbox@v1.0.1"
NAMESPACE = "kode-gopher"
TEMPLATE = "kode-gopher-sandbox"
DAEMON_SA = "kode-gopherd"
MIN_UPSTREAM_TIMEOUT_S = 300

BASE_KINDS = {("Namespace", NAMESPACE), ("SandboxTemplate", TEMPLATE),
              ("SandboxWarmPool", "kode-gopher-pool"), ("ServiceAccount", "sandbox-router"),
              ("Role", "sandbox-router"), ("RoleBinding", "sandbox-router"),
              ("Service", "sandbox-router-svc"), ("Deployment", "sandbox-router"),
              ("NetworkPolicy", "sandbox-router"), ("PodDisruptionBudget", "sandbox-router")}
# Link-local addresses a sandbox may reach, DNS only: GKE's Cloud DNS (on the metadata server's
# address) and NodeLocal DNSCache.
NODE_LOCAL_RESOLVERS = {"169.254.169.254/32", "169.254.20.10/32"}
DAEMON_KINDS = {("ServiceAccount", DAEMON_SA), ("Role", DAEMON_SA), ("RoleBinding", DAEMON_SA)}
# kustomization -> (kinds, runtimeClassName, GKE scheduling and Workload Identity)
KUSTOMIZATIONS = {
    "base": (BASE_KINDS, None, False),
    "overlays/daemon": (BASE_KINDS | DAEMON_KINDS, None, False),
    "overlays/gvisor": (BASE_KINDS | DAEMON_KINDS, "gvisor", False),
    "overlays/gke": (BASE_KINDS | DAEMON_KINDS, "gvisor", True),
    "overlays/team": (BASE_KINDS | DAEMON_KINDS | TEAM_KINDS, None, False),
    "overlays/team/tls": (BASE_KINDS | DAEMON_KINDS | TEAM_KINDS, None, False),
    "overlays/team/gke": (BASE_KINDS | DAEMON_KINDS | TEAM_KINDS, "gvisor", True),
    # team/gke with its optional component added as docs/metrics.md says (`kustomize edit add
    # component`): GKE Managed Prometheus' PodMonitoring, a kind only such clusters know, so
    # validate-against-cluster.sh leaves it out and team_checks.py checks it by hand.
    "overlays/team/gke+managed-prometheus":
        (BASE_KINDS | DAEMON_KINDS | TEAM_KINDS | {POD_MONITORING}, "gvisor", True),
}
DAEMON_RULES = {
    ("extensions.agents.x-k8s.io", "sandboxclaims"):
        {"create", "get", "list", "delete", "patch"},
    ("agents.x-k8s.io", "sandboxes"): {"get"},
    ("extensions.agents.x-k8s.io", "sandboxwarmpools"): {"get"},
    ("extensions.agents.x-k8s.io", "sandboxtemplates"): {"get"},
}


class Failures:
    def __init__(self):
        self.messages = []

    def check(self, condition, message):
        if not condition:
            self.messages.append(message)
        return condition


def run(args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"test-manifests.py: {' '.join(args)} failed ({result.returncode}):\n"
                 f"{result.stderr}")
    return result.stdout


def go_command():
    return os.environ.get("GO") or "go"


def crd_schemas():
    """{(group, kind): {version: openAPIV3Schema}} for the versions the pinned CRDs serve."""
    with tempfile.TemporaryDirectory() as outside_any_module:
        info = json.loads(run([go_command(), "mod", "download", "-json", AGENT_SANDBOX],
                              cwd=outside_any_module,
                              env=dict(os.environ, GOFLAGS="", GOTOOLCHAIN="local")))
    crd_dir = os.path.join(info["Dir"], "k8s", "crds")
    schemas = {}
    for name in sorted(os.listdir(crd_dir)):
        with open(os.path.join(crd_dir, name)) as f:
            crd = yaml.safe_load(f)
        key = (crd["spec"]["group"], crd["spec"]["names"]["kind"])
        schemas[key] = {v["name"]: v["schema"]["openAPIV3Schema"]
                        for v in crd["spec"]["versions"] if v.get("served")}
    return schemas


def schema_errors(value, schema, path):
    """Fields a structural-schema server would reject: unknown fields, wrong types, missing
    required fields, values outside an enum."""
    errors = []
    if schema.get("x-kubernetes-int-or-string"):
        if not isinstance(value, (int, str)) or isinstance(value, bool):
            errors.append(f"{path}: want an integer or a string, have {value!r}")
        return errors
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        if not isinstance(value, dict):
            return [f"{path}: want an object, have {value!r}"]
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            if properties is not None and key in properties:
                errors += schema_errors(item, properties[key], f"{path}.{key}")
            elif isinstance(additional, dict):
                errors += schema_errors(item, additional, f"{path}.{key}")
            elif properties is not None and not schema.get("x-kubernetes-preserve-unknown-fields"):
                errors.append(f"{path}.{key}: not a field of the CRD schema")
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}.{key}: required by the CRD schema, missing")
    elif kind == "array":
        if not isinstance(value, list):
            return [f"{path}: want a list, have {value!r}"]
        for i, item in enumerate(value):
            errors += schema_errors(item, schema.get("items", {}), f"{path}[{i}]")
    elif kind == "string":
        if not isinstance(value, str):
            errors.append(f"{path}: want a string, have {value!r}")
        elif "enum" in schema and value not in schema["enum"]:
            errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    elif kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(f"{path}: want an integer, have {value!r}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            errors.append(f"{path}: want true or false, have {value!r}")
    elif kind == "number":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            errors.append(f"{path}: want a number, have {value!r}")
    return errors


def entrypoint_folders():
    """The folders sandbox/Dockerfile's entrypoint writes to (--workdir, --scratch-dir,
    --persist-dir), less /dev/shm, which every container has as its own tmpfs."""
    with open(os.path.join(REPO, "sandbox", "Dockerfile")) as f:
        text = f.read().replace("\\\n", " ")
    match = re.search(r"^ENTRYPOINT (\[.*\])$", text, re.MULTILINE)
    arguments = json.loads(match.group(1))
    folders = set()
    for flag, value in zip(arguments, arguments[1:]):
        if flag in ("--workdir", "--scratch-dir", "--persist-dir"):
            folders.add(value)
    return folders - {"/dev/shm"}


def duration_seconds(text):
    match = re.fullmatch(r"(\d+)(s|m)", text)
    return int(match.group(1)) * (60 if match.group(2) == "m" else 1) if match else None


def labels_match(selector, labels):
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def check_sandbox_pod(f, template, runtime_class, gke):
    spec = template["spec"]["podTemplate"]["spec"]
    f.check(spec.get("automountServiceAccountToken") is False,
            "sandbox pod: automountServiceAccountToken is not false")
    f.check(spec.get("runtimeClassName") == runtime_class,
            f"sandbox pod: runtimeClassName is {spec.get('runtimeClassName')!r}, "
            f"want {runtime_class!r}")
    f.check(spec.get("shareProcessNamespace") in (None, False),
            "sandbox pod: shares its pid namespace; kode-gopher-sandbox must be pid 1")
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        f.check(not spec.get(field), f"sandbox pod: {field} is set")
    pod_security = spec.get("securityContext", {})
    f.check(pod_security.get("runAsNonRoot") is True and pod_security.get("runAsUser") == 1000,
            "sandbox pod: not runAsNonRoot with runAsUser 1000")
    f.check(pod_security.get("seccompProfile", {}).get("type") == "RuntimeDefault",
            "sandbox pod: seccomp profile is not RuntimeDefault")
    containers = spec.get("containers", [])
    if not f.check(len(containers) == 1, f"sandbox pod: {len(containers)} containers, want 1"):
        return
    container = containers[0]
    security = container.get("securityContext", {})
    f.check(security.get("capabilities", {}).get("drop") == ["ALL"],
            "sandbox container: capabilities not drop [ALL]")
    f.check("add" not in security.get("capabilities", {}), "sandbox container: adds capabilities")
    f.check(security.get("allowPrivilegeEscalation") is False,
            "sandbox container: allowPrivilegeEscalation is not false")
    f.check(security.get("privileged") in (None, False), "sandbox container: privileged")
    f.check(security.get("readOnlyRootFilesystem") is True,
            "sandbox container: root filesystem is writable")
    f.check(security.get("runAsUser", pod_security.get("runAsUser")) == 1000,
            "sandbox container: does not run as uid 1000")
    resources = container.get("resources", {})
    for side in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            f.check(resource in resources.get(side, {}),
                    f"sandbox container: no {resource} in resources.{side}")
    f.check(any(p.get("containerPort") == 8888 for p in container.get("ports", [])),
            "sandbox container: no containerPort 8888")
    probe = container.get("readinessProbe", {}).get("httpGet", {})
    f.check(probe.get("path") == "/" and probe.get("port") == 8888,
            f"sandbox container: readiness probe is {probe}, want GET / on 8888")
    liveness = container.get("livenessProbe", {})
    f.check(liveness.get("httpGet", {}).get("path") == "/" and
            liveness.get("httpGet", {}).get("port") == 8888 and
            liveness.get("periodSeconds", 10) * liveness.get("failureThreshold", 3) >= 60,
            "sandbox container: no liveness probe GET / on 8888 allowing a minute of silence")
    f.check(container.get("image", "").startswith("kode-gopher-sandbox"),
            f"sandbox container: image {container.get('image')!r} is not the kode-gopher-sandbox "
            "image (kustomization images: sets it)")
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    for folder in entrypoint_folders():
        name = mounts.get(folder)
        f.check(name is not None and "emptyDir" in volumes.get(name, {}),
                f"sandbox container: {folder} (written by the image's entrypoint) has no emptyDir "
                "mount; the root filesystem is read-only")
    for name, volume in volumes.items():
        f.check(set(volume) <= {"name", "emptyDir"},
                f"sandbox pod: volume {name} is not an emptyDir")
    scheduling = (spec.get("nodeSelector", {}).get("sandbox.gke.io/runtime") == "gvisor",
                  {"key": "sandbox.gke.io/runtime", "operator": "Equal", "value": "gvisor",
                   "effect": "NoSchedule"} in spec.get("tolerations", []))
    if gke:
        f.check(all(scheduling), "gke: sandbox pod lacks the gVisor node selector or toleration")
    else:
        f.check(not any(scheduling), "sandbox pod: GKE scheduling outside the gke overlay")


def check_network_policy(f, template, router_labels):
    policy = template["spec"].get("networkPolicy")
    if not f.check(policy is not None and template["spec"].get("networkPolicyManagement")
                   == "Managed", "template: no managed networkPolicy"):
        return
    ingress = policy.get("ingress", [])
    f.check(len(ingress) >= 1, "networkPolicy: no ingress rule")
    router_admitted = False
    for rule in ingress:
        f.check([p.get("port") for p in rule.get("ports", [])] == [8888],
                f"networkPolicy: an ingress rule opens {rule.get('ports')}, want only 8888")
        for peer in rule.get("from", []):
            f.check(set(peer) == {"podSelector"},
                    f"networkPolicy: ingress peer {peer} is not a pod of this namespace")
            router_admitted |= labels_match(peer.get("podSelector", {}), router_labels)
    f.check(router_admitted, "networkPolicy: the router's pods are not admitted")
    for rule in policy.get("egress", []):
        ports = {(p.get("protocol", "TCP"), p.get("port")) for p in rule.get("ports", [])}
        # The daemon's egress proxy (team overlays), to the daemon's pods only.
        to_daemon = rule.get("to") == [{"podSelector": {"matchLabels": {
            "app.kubernetes.io/name": DAEMON_SA}}}]
        f.check(ports and (ports <= {("UDP", 53), ("TCP", 53), ("TCP", 443)} or
                           (to_daemon and ports == {("TCP", 3128)})),
                f"networkPolicy: egress opens {sorted(ports)}, want only DNS and 443 (or the "
                "daemon's egress proxy)")
        resolvers = []
        for peer in rule.get("to", []):
            block = peer.get("ipBlock")
            if block and block.get("cidr", "").startswith("169.254."):
                resolvers.append(block["cidr"])
            elif block:
                f.check(block.get("cidr") != "0.0.0.0/0" or
                        "169.254.0.0/16" in block.get("except", []),
                        "networkPolicy: egress reaches link-local (the metadata server)")
        if resolvers:
            f.check(set(resolvers) <= NODE_LOCAL_RESOLVERS and
                    ports <= {("UDP", 53), ("TCP", 53)},
                    f"networkPolicy: link-local egress {resolvers} on {sorted(ports)}, want only "
                    f"{sorted(NODE_LOCAL_RESOLVERS)} on port 53")
    dns_peers = {peer.get("ipBlock", {}).get("cidr") for rule in policy.get("egress", [])
                 for peer in rule.get("to", [])}
    f.check(NODE_LOCAL_RESOLVERS <= dns_peers,
            "networkPolicy: GKE's node-local resolvers (Cloud DNS, NodeLocal DNSCache) are not "
            "reachable on port 53: names would not resolve on such clusters")


def check_router_guards(f, objects, router_labels, daemon_labels):
    """The router is reachable only from the daemon's pods, and a drain leaves one running."""
    policy = objects[("NetworkPolicy", "sandbox-router")]["spec"]
    f.check(labels_match(policy.get("podSelector", {}), router_labels),
            "router NetworkPolicy: does not select the router's pods")
    f.check("Ingress" in policy.get("policyTypes", []), "router NetworkPolicy: no Ingress type")
    for rule in policy.get("ingress", []):
        f.check([(p.get("protocol", "TCP"), p.get("port")) for p in rule.get("ports", [])]
                == [("TCP", 8080)], f"router NetworkPolicy: opens {rule.get('ports')}, want 8080")
        for peer in rule.get("from", []):
            f.check(set(peer) == {"podSelector"} and
                    labels_match(peer["podSelector"], daemon_labels),
                    f"router NetworkPolicy: admits {peer}, want only the daemon's pods")
    f.check(len(policy.get("ingress", [])) == 1, "router NetworkPolicy: want one ingress rule")
    budget = objects[("PodDisruptionBudget", "sandbox-router")]["spec"]
    replicas = objects[("Deployment", "sandbox-router")]["spec"].get("replicas", 1)
    f.check(labels_match(budget.get("selector", {}), router_labels),
            "router PodDisruptionBudget: does not select the router's pods")
    f.check(budget.get("maxUnavailable") == 1 and replicas >= 2,
            f"router PodDisruptionBudget: maxUnavailable {budget.get('maxUnavailable')} with "
            f"{replicas} replicas, want 1 of at least 2")


def check_router(f, objects):
    deployment = objects[("Deployment", "sandbox-router")]
    service = objects[("Service", "sandbox-router-svc")]
    pod = deployment["spec"]["template"]
    ports = service["spec"]["ports"]
    f.check([p["port"] for p in ports] == [8080], "router Service: port is not 8080")
    f.check(labels_match({"matchLabels": service["spec"]["selector"]}, pod["metadata"]["labels"]),
            "router Service: its selector does not match the router's pods")
    container = pod["spec"]["containers"][0]
    named = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    f.check(named.get(ports[0].get("targetPort")) == 8080,
            "router Service: targetPort is not the router's :8080 listener")
    arguments = dict(a.split("=", 1) for a in container.get("args", []) if "=" in a)
    f.check(arguments.get("--http-bind-address") == ":8080", "router: not listening on :8080")
    for flag in ("--response-header-timeout", "--proxy-timeout"):
        seconds = duration_seconds(arguments.get(flag, ""))
        f.check(seconds is not None and seconds >= MIN_UPSTREAM_TIMEOUT_S,
                f"router: {flag} is {arguments.get(flag)!r}, want >= {MIN_UPSTREAM_TIMEOUT_S}s")
    if arguments.get("--cache-enabled") == "true":
        account = pod["spec"].get("serviceAccountName")
        binding = objects.get(("RoleBinding", "sandbox-router"), {})
        role = objects.get(("Role", binding.get("roleRef", {}).get("name")), {})
        f.check({"kind": "ServiceAccount", "name": account, "namespace": NAMESPACE}
                in binding.get("subjects", []), "router: its account is not bound to its Role")
        f.check(any("pods" in r.get("resources", []) and {"list", "watch"} <= set(r["verbs"])
                    for r in role.get("rules", [])),
                "router: --cache-enabled without list/watch on pods")
    return pod["metadata"]["labels"]


def check_daemon_rbac(f, objects, gke):
    role = objects[("Role", DAEMON_SA)]
    granted = {}
    for rule in role["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                granted.setdefault((group, resource), set()).update(rule["verbs"])
    f.check(granted == DAEMON_RULES, f"daemon Role grants {granted}, want {DAEMON_RULES}")
    binding = objects[("RoleBinding", DAEMON_SA)]
    f.check(binding["roleRef"]["name"] == DAEMON_SA and
            binding["subjects"] == [{"kind": "ServiceAccount", "name": DAEMON_SA,
                                     "namespace": NAMESPACE}],
            f"daemon RoleBinding: {binding['roleRef']} {binding['subjects']}")
    annotation = objects[("ServiceAccount", DAEMON_SA)]["metadata"].get(
        "annotations", {}).get("iam.gke.io/gcp-service-account")
    if gke:
        f.check(annotation is not None and annotation.endswith(".iam.gserviceaccount.com"),
                "gke: the daemon's ServiceAccount has no Workload Identity annotation")
    else:
        f.check(annotation is None, "Workload Identity annotation outside the gke overlay")


# Images still named by a tag, and why (README's status section says it too): none.
TAGGED_IMAGES = {}
PINNED = re.compile(r"^[a-z0-9./_-]+@sha256:[0-9a-f]{64}$")


def containers_of(document):
    """Every container of a workload or SandboxTemplate, wherever its pod spec sits."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("containers", "initContainers") and isinstance(item, list):
                    found.extend(c for c in item if isinstance(c, dict) and "image" in c)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(document.get("spec", {}))
    return found


def check_images_pinned(f, name, documents):
    """Every image by digest (NAME@sha256:...), no mutable tag such as :dev: a pod restarted or
    rescheduled gets the very image that was tested."""
    for document in documents:
        for container in containers_of(document):
            image = container["image"]
            if image.split("@")[0].split(":")[0].rsplit("/", 1)[-1] in TAGGED_IMAGES:
                continue
            f.check(PINNED.match(image) is not None,
                    f"{name}: {document['kind']}/{document['metadata']['name']} container "
                    f"{container.get('name')}: image {image!r} is not pinned by digest "
                    "(kustomization images: with digest:)")


def check_rendering(f, name, documents, expected_kinds, runtime_class, gke, schemas, builtin):
    check_images_pinned(f, name, documents)
    objects = {object_key(d): d for d in documents}
    f.check(len(objects) == len(documents), f"{name}: two objects share a kind and name")
    f.check(set(objects) == expected_kinds,
            f"{name}: renders {sorted(set(objects) ^ expected_kinds)} unexpectedly "
            "(missing or extra)")
    for (kind, object_name), document in objects.items():
        if kind != "Namespace":
            f.check(document["metadata"].get("namespace") == NAMESPACE,
                    f"{name}: {kind}/{object_name} is not in namespace {NAMESPACE}")
        group, _, version = document["apiVersion"].rpartition("/")
        if document["apiVersion"] == POD_MONITORING_API and kind == POD_MONITORING[0]:
            pass  # no schema of it is served offline: team_checks.check_metrics_scraping
        elif (group, kind) in schemas:
            served = schemas[(group, kind)]
            if f.check(version in served, f"{name}: {kind} {document['apiVersion']} is not a "
                       f"version the pinned CRD serves ({sorted(served)})"):
                body = {k: v for k, v in document.items() if k != "metadata"}
                for error in schema_errors(body, served[version], kind):
                    f.check(False, f"{name}: {error}")
        elif f.check(builtin.knows(document["apiVersion"], kind),
                     f"{name}: {kind} {document['apiVersion']} is neither a built-in kind of "
                     "Kubernetes v1.36 nor an agent-sandbox kind"):
            for error in builtin.errors(document):
                f.check(False, f"{name}: {error}")
    if not expected_kinds <= set(objects):
        return
    template = objects[("SandboxTemplate", TEMPLATE)]
    pool = objects[("SandboxWarmPool", "kode-gopher-pool")]
    f.check(pool["spec"]["sandboxTemplateRef"]["name"] == TEMPLATE,
            "warm pool: does not name the template")
    f.check(pool["spec"].get("replicas", 1) >= 1, "warm pool: no replicas")
    f.check(pool["spec"].get("updateStrategy", {}).get("type") == "Recreate",
            "warm pool: stale sandboxes are not replaced at once (updateStrategy Recreate)")
    check_sandbox_pod(f, template, runtime_class, gke)
    router_labels = check_router(f, objects)
    check_network_policy(f, template, router_labels)
    check_router_guards(f, objects, router_labels, {"app.kubernetes.io/name": DAEMON_SA})
    if ("Role", DAEMON_SA) in objects:
        check_daemon_rbac(f, objects, gke)
    if TEAM_KINDS <= expected_kinds:
        check_team(f, name, objects, template, tls=name.endswith("/tls"),
                   monitoring=POD_MONITORING in expected_kinds)


def check_team_configs(f):
    """Each team overlay's kode-gopher.ini passes the daemon's own `kode-gopher config check`
    (the key table, the values and the team settings checks), so the manifests cannot drift
    from the config keys the daemon reads."""
    cli = os.environ.get("KG_CLI", "")
    if not cli:
        f.check(False, "KG_CLI is not set: cannot run `kode-gopher config check` on the team inis")
        return
    team = pathlib.Path(REPO, "manifests", "overlays", "team")
    for ini in sorted(team.glob("**/kode-gopher.ini")):
        result = subprocess.run([cli, "config", "check", str(ini)], capture_output=True, text=True)
        output = (result.stdout + result.stderr).strip()
        f.check(result.returncode == 0 and "warning" not in output,
                f"{ini.relative_to(REPO)}: `kode-gopher config check` says: {output}")


def render(kustomize, name):
    """`kustomize build` of manifests/NAME; NAME+COMPONENT: with ./COMPONENT added to it first, in
    a copy of manifests/, as a user does with `kustomize edit add component`."""
    if "+" not in name:
        return run([kustomize, "build", os.path.join(REPO, "manifests", name)])
    overlay, component = name.split("+")
    with tempfile.TemporaryDirectory() as copy:
        shutil.copytree(os.path.join(REPO, "manifests"), os.path.join(copy, "manifests"))
        directory = os.path.join(copy, "manifests", overlay)
        run([kustomize, "edit", "add", "component", component], cwd=directory)
        return run([kustomize, "build", directory])


def main():
    kustomize = run([os.path.join(HERE, "kustomize.sh")]).strip()
    schemas = crd_schemas()
    builtin = BuiltinSchemas(go_command())
    passed = failed = 0
    for name, (kinds, runtime_class, gke) in KUSTOMIZATIONS.items():
        rendered = render(kustomize, name)
        documents = [d for d in yaml.safe_load_all(rendered) if d]
        f = Failures()
        check_rendering(f, name, documents, kinds, runtime_class, gke, schemas, builtin)
        if f.messages:
            failed += 1
            print(f"FAIL {name}")
            for message in f.messages:
                print(f"  {message}")
        else:
            passed += 1
            print(f"ok   {name}: {len(documents)} objects")
    f = Failures()
    check_team_configs(f)
    for message in f.messages:
        print(f"FAIL team configs: {message}")
    if not f.messages:
        print("ok   team configs: `kode-gopher config check` accepts every team overlay's ini")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or f.messages else 0


if __name__ == "__main__":
    sys.exit(main())
