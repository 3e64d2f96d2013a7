"""Checks of the team-mode overlays (manifests/overlays/team, docs/team-mode.md): the daemon's
Deployment against its own kode-gopher.ini (every path the config names is mounted, writable where
the daemon writes, from the Secret or volume the docs name), its probes, its hardening, one replica,
and how it meets the rest (its Service, its account, the sandbox template's NetworkPolicy, the
router's Service, the warm pool)."""

import configparser
import re

DAEMON = "kode-gopherd"
CONFIG_MAP = "kode-gopherd-config"
STATE_CLAIM = "kode-gopherd-state"
READINESS_PATH = "/.well-known/oauth-protected-resource"
OAUTH_SECRET = "kode-gopher-oauth"
TLS_SECRET = "kode-gopher-tls"
EGRESS_SERVICE = "kode-gopherd-egress"
TEAM_KINDS = {("Deployment", DAEMON), ("Service", DAEMON), ("Service", EGRESS_SERVICE),
              ("ConfigMap", CONFIG_MAP), ("PersistentVolumeClaim", STATE_CLAIM)}
METRICS_PATH = "/metrics"
# GKE Managed Prometheus (manifests/overlays/team/gke/managed-prometheus, docs/metrics.md).
POD_MONITORING_API = "monitoring.googleapis.com/v1"
POD_MONITORING = ("PodMonitoring", DAEMON)
# The fields of PodMonitoring v1 (Google's prometheus-engine CRD; its module is not served by the
# Go proxy, so no schema is read here): what a strict apply would refuse as unknown.
POD_MONITORING_SPEC = {"selector", "endpoints", "targetLabels", "limits", "filterRunning"}
POD_MONITORING_ENDPOINT = {"port", "path", "interval", "timeout", "scheme", "params",
                           "metricRelabeling", "proxyUrl", "authorization", "basicAuth", "oauth2",
                           "tls"}


def object_key(document):
    """(kind, name), with the hash configMapGenerator appends to the daemon's ConfigMap taken off."""
    name = document["metadata"]["name"]
    if document["kind"] == "ConfigMap" and re.fullmatch(CONFIG_MAP + r"-[a-z0-9]{10}", name):
        name = CONFIG_MAP
    return document["kind"], name


def parse_ini(text):
    """The daemon's syntax (docs/configuration.md): '#' or ';' comments on their own lines, values
    verbatim to the end of the line, names case-insensitive."""
    parser = configparser.ConfigParser(comment_prefixes=("#", ";"), inline_comment_prefixes=None,
                                       interpolation=None, strict=True)
    parser.read_string(text)
    return parser


def mount_for(container, volumes, path):
    """(mount, volume) of the deepest mount holding `path`, or (None, None)."""
    best = (None, None)
    for mount in container.get("volumeMounts", []):
        base = mount["mountPath"].rstrip("/")
        if path == base or path.startswith(base + "/"):
            if best[0] is None or len(base) > len(best[0]["mountPath"].rstrip("/")):
                best = (mount, volumes.get(mount["name"]))
    return best


def check_secret_file(f, container, volumes, path, secret, what):
    mount, volume = mount_for(container, volumes, path)
    if not f.check(mount is not None and "secret" in (volume or {}),
                   f"team: {what} {path} is not on a Secret volume"):
        return
    f.check(volume["secret"].get("secretName") == secret,
            f"team: {what} comes from Secret {volume['secret'].get('secretName')!r}, "
            f"docs/team-mode.md names {secret!r}")
    f.check(mount.get("readOnly") is True, f"team: the {what} mount is not read-only")
    relative = path[len(mount["mountPath"].rstrip("/")) + 1:]
    items = volume["secret"].get("items")
    f.check(items is None or any(i["path"] == relative for i in items),
            f"team: {what} {path}: the Secret volume has no item at {relative!r}")
    f.check(volume["secret"].get("defaultMode", 0o644) & 0o007 == 0,
            f"team: the {what} is readable by others (defaultMode)")


def check_security(f, pod):
    spec = pod["spec"]
    pod_security = spec.get("securityContext", {})
    container = spec["containers"][0]
    security = container.get("securityContext", {})
    f.check(pod_security.get("runAsNonRoot") is True and
            security.get("runAsUser", pod_security.get("runAsUser")) not in (None, 0),
            "team daemon: not runAsNonRoot with a non-zero runAsUser")
    f.check(security.get("seccompProfile", pod_security.get("seccompProfile", {})).get("type")
            == "RuntimeDefault", "team daemon: seccomp profile is not RuntimeDefault")
    f.check(security.get("capabilities", {}).get("drop") == ["ALL"] and
            "add" not in security.get("capabilities", {}),
            "team daemon: capabilities not drop [ALL]")
    f.check(security.get("allowPrivilegeEscalation") is False,
            "team daemon: allowPrivilegeEscalation is not false")
    f.check(security.get("privileged") in (None, False), "team daemon: privileged")
    f.check(security.get("readOnlyRootFilesystem") is True,
            "team daemon: root filesystem is writable")
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        f.check(not spec.get(field), f"team daemon: {field} is set")
    resources = container.get("resources", {})
    for side in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            f.check(resource in resources.get(side, {}),
                    f"team daemon: no {resource} in resources.{side}")


def check_egress_through_daemon(f, objects, template, container, value):
    """The sandboxes' only way out but DNS is the daemon's egress proxy (docs/kubernetes.md,
    "Egress through the daemon"): the ini points the pods at the egress Service, that Service
    reaches the container port the daemon listens on, and the template's NetworkPolicy admits
    egress to nothing else (no public 443 rule left)."""
    service = objects[("Service", EGRESS_SERVICE)]
    service_port = service["spec"]["ports"][0]
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    f.check(value("kubernetes", "egress_proxy_address") ==
            f"{EGRESS_SERVICE}:{service_port['port']}",
            "team: [kubernetes] egress_proxy_address is not the egress Service "
            f"({value('kubernetes', 'egress_proxy_address')!r})")
    listen = value("kubernetes", "egress_proxy_listen") or "0.0.0.0:3128"
    f.check(service_port.get("targetPort") == "egress" and
            listen == f"0.0.0.0:{ports.get('egress')}",
            f"team: the egress Service does not reach egress_proxy_listen {listen!r} "
            f"(container port egress: {ports.get('egress')})")
    f.check(service["spec"].get("selector") == {"app.kubernetes.io/name": DAEMON},
            "team: the egress Service does not select the daemon's pods")
    egress = template["spec"]["networkPolicy"].get("egress", [])
    to_daemon = [rule for rule in egress
                 if any(peer.get("podSelector", {}).get("matchLabels") ==
                        {"app.kubernetes.io/name": DAEMON} for peer in rule.get("to", []))]
    f.check(len(to_daemon) == 1 and
            [(p.get("protocol", "TCP"), p.get("port")) for p in to_daemon[0].get("ports", [])]
            == [("TCP", ports.get("egress"))],
            "team: the sandbox NetworkPolicy does not admit the daemon's egress port (alone)")
    for rule in egress:
        for peer in rule.get("to", []):
            cidr = peer.get("ipBlock", {}).get("cidr", "")
            f.check(not cidr or cidr.startswith("169.254."),
                    f"team: the sandbox NetworkPolicy still lets pods out to {cidr} around the "
                    "daemon's egress proxy")


def check_metrics_scraping(f, objects, pod, container, tls, monitoring):
    """Prometheus finds /metrics (docs/metrics.md): the pod's prometheus.io annotations name the
    HTTP port, the path and, where the daemon serves TLS itself, the https scheme; the optional
    PodMonitoring of GKE Managed Prometheus selects the daemon's pods on the same port and path."""
    annotations = pod["metadata"].get("annotations", {})
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    f.check(annotations.get("prometheus.io/scrape") == "true" and
            annotations.get("prometheus.io/port") == str(ports.get("http")) and
            annotations.get("prometheus.io/path") == METRICS_PATH,
            f"team: prometheus.io annotations {annotations} do not name /metrics on the http port")
    f.check(annotations.get("prometheus.io/scheme", "http") == ("https" if tls else "http"),
            f"team: prometheus.io/scheme is {annotations.get('prometheus.io/scheme')!r}, the "
            f"daemon serves {'HTTPS' if tls else 'plain HTTP'}")
    if not monitoring:
        f.check(POD_MONITORING not in objects, "team: a PodMonitoring outside its optional component")
        return
    monitor = objects[POD_MONITORING]
    f.check(monitor["apiVersion"] == POD_MONITORING_API,
            f"team: PodMonitoring apiVersion {monitor['apiVersion']}, want {POD_MONITORING_API}")
    spec = monitor.get("spec", {})
    f.check(set(spec) <= POD_MONITORING_SPEC,
            f"team: PodMonitoring spec fields {sorted(set(spec) - POD_MONITORING_SPEC)} unknown")
    f.check(set(spec.get("selector", {})) == {"matchLabels"} and
            spec["selector"]["matchLabels"] and
            all(pod["metadata"]["labels"].get(k) == v
                for k, v in spec["selector"]["matchLabels"].items()),
            "team: the PodMonitoring does not select the daemon's pods")
    endpoints = spec.get("endpoints", [])
    f.check(len(endpoints) == 1 and set(endpoints[0]) <= POD_MONITORING_ENDPOINT and
            endpoints[0].get("port") in ("http", ports.get("http")) and
            endpoints[0].get("path") == METRICS_PATH and
            endpoints[0].get("scheme", "http") == ("https" if tls else "http") and
            re.fullmatch(r"\d+s", endpoints[0].get("interval", "")),
            f"team: PodMonitoring endpoints {endpoints}, want one: port http, path {METRICS_PATH}, "
            "an interval in seconds")


def check_team(f, name, objects, template, tls, monitoring=False):
    deployment = objects[("Deployment", DAEMON)]
    pod = deployment["spec"]["template"]
    spec = pod["spec"]
    containers = spec.get("containers", [])
    if not f.check(len(containers) == 1, f"team: {len(containers)} daemon containers, want 1"):
        return
    container = containers[0]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    f.check(deployment["spec"].get("replicas") == 1,
            "team: the daemon has more than one replica (SQLite and MCP sessions: one writer)")
    f.check(deployment["spec"].get("strategy", {}).get("type") == "Recreate",
            "team: the daemon's rollout is not Recreate (two pods would share the state volume)")
    f.check(spec.get("serviceAccountName") == DAEMON,
            f"team: the daemon runs as {spec.get('serviceAccountName')!r}, not {DAEMON}")
    f.check(spec.get("automountServiceAccountToken") is not False,
            "team: the daemon gets no service-account token (in-cluster config needs it)")
    f.check(container.get("image", "").startswith("kode-gopherd"),
            f"team: image {container.get('image')!r} is not kode-gopherd (images: sets it)")
    check_security(f, pod)

    # The config: mounted where --config says, from the generated ConfigMap.
    arguments = container.get("args", [])
    config_path = arguments[arguments.index("--config") + 1] if "--config" in arguments else None
    mount, volume = mount_for(container, volumes, config_path or "/nonexistent")
    if not f.check(config_path is not None and mount is not None and
                   volume.get("configMap", {}).get("name") ==
                   objects[("ConfigMap", CONFIG_MAP)]["metadata"]["name"],
                   f"team: --config {config_path} is not the generated ConfigMap's file"):
        return
    f.check(mount.get("subPath") == "kode-gopher.ini" or
            config_path.endswith("/kode-gopher.ini"), "team: the config file is not kode-gopher.ini")
    ini = parse_ini(objects[("ConfigMap", CONFIG_MAP)]["data"]["kode-gopher.ini"])

    def value(section, key):
        return ini.get(section, key, fallback="").strip()

    f.check(value("sandbox", "provider") == "kubernetes", "team: [sandbox] provider is not kubernetes")
    f.check(value("kubernetes", "namespace") == deployment["metadata"]["namespace"],
            "team: [kubernetes] namespace is not the daemon's namespace")
    pools = [k[1] for k in objects if k[0] == "SandboxWarmPool"]
    f.check(value("kubernetes", "warm_pool") in pools,
            f"team: [kubernetes] warm_pool {value('kubernetes', 'warm_pool')!r} is not {pools}")
    router = objects[("Service", "sandbox-router-svc")]
    f.check(value("kubernetes", "router") ==
            f"sandbox-router-svc:{router['spec']['ports'][0]['port']}",
            "team: [kubernetes] router is not the router's Service")
    f.check(value("kubernetes", "daemon_id") != "",
            "team: no [kubernetes] daemon_id (a new pod name would leave its predecessor's claims)")

    check_egress_through_daemon(f, objects, template, container, value)

    # HTTP: the listener on the container port the Service and the probe use.
    listen = value("http", "listen")
    host, _, port = listen.rpartition(":")
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    f.check(host == "0.0.0.0" and port.isdigit() and ports.get("http") == int(port),
            f"team: [http] listen {listen!r} is not 0.0.0.0 on the container port 'http' "
            f"({ports.get('http')})")
    f.check(value("http", "public_url").startswith("https://"),
            "team: [http] public_url is not https")
    trusted_proxy = value("http", "trusted_proxy") == "true"
    certificate, key = value("http", "tls_certificate"), value("http", "tls_key")
    f.check(trusted_proxy != bool(certificate) and bool(certificate) == bool(key),
            "team: want either trusted_proxy = true (TLS at a proxy) or tls_certificate and tls_key")
    f.check(bool(certificate) == tls, f"team: {name} should {'' if tls else 'not '}serve TLS itself")
    if certificate:
        check_secret_file(f, container, volumes, certificate, TLS_SECRET, "[http] tls_certificate")
        check_secret_file(f, container, volumes, key, TLS_SECRET, "[http] tls_key")
    probe = container.get("readinessProbe", {}).get("httpGet", {})
    f.check(probe.get("path") == READINESS_PATH and probe.get("port") in ("http", ports.get("http"))
            and probe.get("scheme", "HTTP") == ("HTTPS" if certificate else "HTTP"),
            f"team: readiness probe is {probe}, want GET {READINESS_PATH} on http over "
            f"{'HTTPS' if certificate else 'HTTP'}")
    f.check("livenessProbe" in container, "team: the daemon has no liveness probe")
    check_metrics_scraping(f, objects, pod, container, tls, monitoring)

    # OAuth and team.
    for key_name in ("issuer", "client_id", "client_secret_file"):
        f.check(value("oauth", key_name) != "", f"team: no [oauth] {key_name}")
    f.check(value("oauth", "issuer").startswith("https://"), "team: [oauth] issuer is not https")
    f.check(value("oauth", "allowed_domains") or value("oauth", "allowed_users"),
            "team: neither [oauth] allowed_domains nor allowed_users: everyone is refused")
    if value("oauth", "client_secret_file"):
        check_secret_file(f, container, volumes, value("oauth", "client_secret_file"),
                          OAUTH_SECRET, "[oauth] client_secret_file")
    run_as = value("team", "run_as")
    f.check(run_as in ("user", "daemon"), f"team: [team] run_as {run_as!r}, want user or daemon")
    scopes = value("oauth", "scopes")
    if run_as == "user":
        # Programs act with the user's Google token: Google must be the issuer and grant it.
        f.check(value("oauth", "issuer") == "https://accounts.google.com" and
                (not scopes or "https://www.googleapis.com/auth/cloud-platform" in scopes.split()),
                "team: run_as = user without Google's cloud-platform scope")
    else:
        plugin = value("credentials", "plugin")
        f.check(plugin in ("creds-adc", "creds-workload"),
                f"team: run_as = daemon with [credentials] plugin {plugin!r}: programs get no "
                "identity")
        if plugin == "creds-workload":
            account = objects[("ServiceAccount", DAEMON)]
            f.check("iam.gke.io/gcp-service-account" in
                    account["metadata"].get("annotations", {}),
                    "team: creds-workload, but the daemon's account has no Workload Identity")

    # Where the daemon writes: the state dir on the claim, the socket on a writable volume.
    state_dir = value("daemon", "state_dir")
    mount, volume = mount_for(container, volumes, state_dir or "/nonexistent")
    f.check(state_dir and mount is not None and not mount.get("readOnly") and
            volume.get("persistentVolumeClaim", {}).get("claimName") == STATE_CLAIM,
            f"team: [daemon] state_dir {state_dir!r} is not on the claim {STATE_CLAIM}")
    socket = value("daemon", "socket")
    mount, volume = mount_for(container, volumes, socket or "/nonexistent")
    f.check(socket and mount is not None and not mount.get("readOnly") and volume is not None,
            f"team: [daemon] socket {socket!r} is not on a writable volume")
    mount, _ = mount_for(container, volumes, "/tmp/x")
    f.check(mount is not None and not mount.get("readOnly"), "team: /tmp is not writable")
    claim = objects[("PersistentVolumeClaim", STATE_CLAIM)]
    f.check(claim["spec"].get("accessModes") == ["ReadWriteOnce"],
            "team: the state claim is not ReadWriteOnce")

    # The Service reaches the pod's HTTP port; the sandboxes' NetworkPolicy admits the pod.
    service = objects[("Service", DAEMON)]
    f.check(all(pod["metadata"]["labels"].get(k) == v
                for k, v in service["spec"]["selector"].items()),
            "team: the Service's selector does not match the daemon's pods")
    f.check([p.get("targetPort") for p in service["spec"]["ports"]] in (["http"], [ports.get("http")]),
            "team: the Service does not target the daemon's http port")
    f.check(service["spec"].get("type", "ClusterIP") == ("LoadBalancer" if tls else "ClusterIP"),
            f"team: Service type {service['spec'].get('type')!r}")
    peers = [peer.get("podSelector", {}) for rule in
             template["spec"].get("networkPolicy", {}).get("ingress", [])
             for peer in rule.get("from", [])]
    f.check(any(peer.get("matchLabels") and
                all(pod["metadata"]["labels"].get(k) == v for k, v in peer["matchLabels"].items())
                for peer in peers),
            "team: the sandbox NetworkPolicy does not admit the daemon's pods")
