#!/usr/bin/env python3
"""Runs the OCI images packaging/images/build-images.py made, from their own root filesystems, in
bubblewrap: what a container runtime does with them, without one. Images are found by digest in an
image store folder (the build's out dir: <name>.oci.tar and <name>.digest); a reference without a
digest is refused, as a kubelet told to pull only by digest would. Each image is unpacked once
(umoci unpack, into <store>/unpacked/<digest>), and run as its config says: entrypoint, env, user,
working dir, on a read-only root.

  oci-run.py check STORE
      The images test: each image unpacks, its manifest digest is its .digest file, and its entry
      binaries run from its root filesystem: the sandbox server answers, runs commands as uid 1000,
      builds a program importing a curated package from the image's prewarmed cache (only the
      program's own package compiles) and runs it, and the Yaegi runner interprets it; the router
      starts and prints its flags; the team daemon starts as its non-root user with the
      kubernetes provider (an API server that does not answer: it starts all the same) and
      answers /v1/health and /metrics on its Unix socket.
  oci-run.py unpack STORE
      Unpacks every image in STORE (what a node's pull is to the pods after it).
  oci-run.py pod STORE tcp:HOST:PORT
      A pod of the k8s suite (the kubelet player's pod command): the image $KG_IMAGE with the
      entrypoint's tcp:0.0.0.0:8888 made tcp:HOST:PORT and the container's args ($KG_POD_ARGS,
      a JSON list) after it, fresh tmpfs at $KG_POD_WRITABLE (colon-separated: the pod's
      emptyDir mounts), the host's network (pod IPs are 127.0.0.N).
  oci-run.py pod --only-reach HOST:PORT STORE tcp:HOST:PORT
      The same, but the pod runs in a network of its own whose only way out is HOST:PORT (the
      daemon's egress gateway), as a NetworkPolicy would admit (pod_network.py); its server
      still listens at the pod IP on the host's network.
  oci-run.py run STORE [--bind-ro PATH]... -- ARGS...
      The image $KG_IMAGE with ARGS after its entrypoint (a container's args), PATHs readable at
      the same place (the k8s suite's router reads its kubeconfig so).
Exit 1 with the reason on any failure.
"""

import fcntl
import json
import os
import shutil
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pod_network

IMAGES = ("kode-gopher-sandbox", "kode-gopherd", "sandbox-router")


class Refused(Exception):
    pass


def digest_of(store, name):
    with open(os.path.join(store, f"{name}.digest")) as f:
        return f.read().strip()


def resolve(store, reference):
    """The image name in `store` that `reference` (NAME@sha256:HEX, NAME possibly with a registry
    path) names; refuses tags and unknown digests."""
    if "@" not in reference:
        raise Refused(f"image {reference!r} is not referenced by digest (NAME@sha256:...); "
                      "the manifests must pin every image by digest")
    name, digest = reference.split("@", 1)
    name = name.rsplit("/", 1)[-1].split(":", 1)[0]
    path = os.path.join(store, f"{name}.digest")
    if not os.path.exists(path):
        raise Refused(f"image {reference!r}: no image {name} in {store} (build-images.py makes it)")
    have = digest_of(store, name)
    if have != digest:
        raise Refused(f"image {reference!r}: {store} has {name}@{have}, not that digest "
                      "(the manifests name another build's image)")
    return name


def unpack(store, name):
    """<store>/unpacked/<hex>: the image's runtime bundle (config.json, rootfs), made once."""
    digest = digest_of(store, name)
    target = os.path.join(store, "unpacked", digest.split(":", 1)[1])
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(os.path.join(store, "unpacked", ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(target, "config.json")):
            return target
        # Images of earlier builds are unpacked no more (a few GB each for the sandbox's).
        current = {digest_of(store, n).split(":", 1)[1] for n in IMAGES
                   if os.path.exists(os.path.join(store, f"{n}.digest"))}
        for old in os.listdir(os.path.dirname(target)):
            if old not in current and not old.startswith(".") and not old.startswith("tmp"):
                shutil.rmtree(os.path.join(os.path.dirname(target), old), ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(target)) as scratch:
            layout = os.path.join(scratch, "layout")
            # GNU tar, not tarfile: Debian 12's Python 3.11.2 has no extraction filters, and tar
            # already refuses absolute and ../ member names.
            os.makedirs(layout)
            untar = subprocess.run(["tar", "-xf", os.path.join(store, f"{name}.oci.tar"), "-C",
                                    layout], capture_output=True, text=True)
            if untar.returncode != 0:
                raise Refused(f"unpacking {name}.oci.tar failed: {untar.stderr[-2000:]}")
            with open(os.path.join(layout, "index.json")) as f:
                indexed = json.load(f)["manifests"][0]["digest"]
            if indexed != digest:
                raise Refused(f"{name}.oci.tar's manifest is {indexed}, its .digest says {digest}")
            bundle = os.path.join(scratch, "bundle")
            result = subprocess.run(["umoci", "unpack", "--image", f"{layout}:latest", bundle],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise Refused(f"umoci unpack of {name} failed: {result.stderr[-2000:]}")
            shutil.rmtree(target, ignore_errors=True)
            os.rename(bundle, target)
        return target


def bwrap_command(bundle, args=None, listen=None, writable=(), readable=()):
    """bubblewrap running the bundle's process as its config says, on its read-only root."""
    with open(os.path.join(bundle, "config.json")) as f:
        process = json.load(f)["process"]
    argv = list(process["args"]) + list(args or [])
    if listen:
        if "tcp:0.0.0.0:8888" not in argv:
            raise Refused(f"the image's entrypoint {argv} does not listen on tcp:0.0.0.0:8888")
        argv[argv.index("tcp:0.0.0.0:8888")] = listen
    user = process.get("user", {})
    command = ["bwrap", "--unshare-user", "--uid", str(user.get("uid", 0)),
               "--gid", str(user.get("gid", 0)), "--unshare-pid", "--as-pid-1", "--unshare-ipc",
               "--unshare-uts", "--die-with-parent",
               "--ro-bind", os.path.join(bundle, "rootfs"), "/",
               "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm"]
    for folder in writable:
        command += ["--perms", "0755", "--tmpfs", folder]
    # Paths handed in are mounted as a kubelet mounts a volume: on a fresh tmpfs at their top
    # folder when the read-only image has no such folder or it is /tmp (bwrap cannot make a
    # mount point in a read-only root).
    rootfs = os.path.join(bundle, "rootfs")
    tops = []
    for path in readable:
        top = "/" + path.strip("/").split("/", 1)[0]
        if top not in tops and (top == "/tmp" or not os.path.isdir(rootfs + top)):
            tops.append(top)
            command += ["--tmpfs", top]
    for path in readable:
        command += ["--ro-bind", path, path]
    command += ["--clearenv", "--chdir", process.get("cwd", "/")]
    for entry in process.get("env", []):
        name, _, value = entry.partition("=")
        command += ["--setenv", name, value]
    return command + argv, user.get("uid", 0)


# --- check ----------------------------------------------------------------------------------------

CURATED_PROGRAM = """package main

import (
	"fmt"

	"cloud.google.com/go/storage"
)

func main() { fmt.Println("scope", storage.ScopeReadOnly) }
"""


def http(port, method, path, body=None, timeout=600):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def check_sandbox(store):
    bundle = unpack(store, "kode-gopher-sandbox")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command, uid = bwrap_command(bundle, listen=f"tcp:127.0.0.1:{port}",
                                 writable=("/app", "/tmp", "/home/gopher", "/persist"))
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                assert http(port, "GET", "/", timeout=2).get("status") == "ok"
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the sandbox image's server did not answer GET / in 10 s")
        who = http(port, "POST", "/execute", {"command": "id -u; go version; ls /usr/share/doc | wc -l"})
        assert who["exit_code"] == 0 and who["stdout"].split("\n")[0] == str(uid) == "1000", who
        build = ("printf '%s' " + shlex.quote(CURATED_PROGRAM) + " > main.go && "
                 "cp /opt/kode-gopher/lockfile/go.mod /opt/kode-gopher/lockfile/go.sum . && "
                 "go build -trimpath -buildvcs=false -o /home/gopher/prog . && /home/gopher/prog && "
                 "for f in $(find /home/gopher/.cache/kode-gopher-upper -name '*-d'); do "
                 "head -c 8 $f | grep -q 'go index' || echo $f; done | wc -l")
        result = http(port, "POST", "/execute", {"command": build})
        assert result["exit_code"] == 0, f"building in the sandbox image failed: {result}"
        lines = result["stdout"].split()
        assert lines[:2] == ["scope", "https://www.googleapis.com/auth/devstorage.read_only"], result
        assert int(lines[-1]) < 10, f"{lines[-1]} packages compiled: the image's prewarmed cache was not used"
        interpreted = http(port, "POST", "/execute", {
            "command": "KG_YAEGI_TOKEN=0123abcd /opt/kode-gopher/bin/kode-gopher-yaegi /app"})
        assert interpreted["exit_code"] == 0 and interpreted["stdout"].split()[:1] == ["scope"], \
            f"the Yaegi runner in the sandbox image: {interpreted}"
    finally:
        server.kill()
        server.wait()


def check_router(store):
    bundle = unpack(store, "sandbox-router")
    command, uid = bwrap_command(bundle, args=["--help"])
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    output = result.stdout + result.stderr
    assert uid == 65532, f"the router image runs as uid {uid}, want 65532 (runAsNonRoot)"
    for flag in ("cache-enabled", "http-bind-address", "proxy-timeout"):
        assert flag in output, f"sandbox-router --help from its image does not list {flag}:\n{output[-2000:]}"


DAEMON_CONFIG = """[daemon]
socket = /tmp/run/daemon.sock
state_dir = /tmp/state
[sandbox]
provider = kubernetes
[kubernetes]
kubeconfig = /tmp/kubeconfig
namespace = kode-gopher
daemon_id = kg-image-check
[credentials]
plugin = none
"""
# An API server nobody serves (port 9 of loopback: discard, closed here): the provider's
# start-up reads fail, which it logs and serves on.
DAEMON_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: none
  cluster:
    server: https://127.0.0.1:9
    insecure-skip-tls-verify: true
users:
- name: none
  user:
    token: not-a-token
contexts:
- name: none
  context:
    cluster: none
    user: none
current-context: none
"""


def unix_get(socket_path, path):
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(10)
        client.connect(socket_path)
        client.sendall(f"GET {path} HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode()


def check_daemon(store):
    bundle = unpack(store, "kode-gopherd")
    with tempfile.TemporaryDirectory() as scratch:
        os.chmod(scratch, 0o777)
        for folder in ("run", "state"):
            os.makedirs(os.path.join(scratch, folder), mode=0o777)
            os.chmod(os.path.join(scratch, folder), 0o777)
        with open(os.path.join(scratch, "kode-gopher.ini"), "w") as f:
            f.write(DAEMON_CONFIG)
        with open(os.path.join(scratch, "kubeconfig"), "w") as f:
            f.write(DAEMON_KUBECONFIG)
        command, uid = bwrap_command(bundle, args=["--config", "/tmp/kode-gopher.ini"])
        assert uid == 65532, f"the daemon image runs as uid {uid}, want 65532 (runAsNonRoot)"
        # The scratch folder as the pod's /tmp (an emptyDir), writable.
        at = command.index("--clearenv")
        command[at:at] = ["--bind", scratch, "/tmp"]
        log = open(os.path.join(scratch, "daemon.log"), "w+")
        daemon = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        socket_path = os.path.join(scratch, "run", "daemon.sock")
        try:
            for _ in range(300):
                if daemon.poll() is not None:
                    break
                try:
                    status, health = unix_get(socket_path, "/v1/health")
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                status = None
            log.seek(0)
            assert daemon.poll() is None and status == 200, \
                f"the daemon from its image did not answer /v1/health in 30 s:\n{log.read()[-3000:]}"
            health = json.loads(health)
            assert health.get("status") == "ok", f"/v1/health: {health}"
            status, metrics = unix_get(socket_path, "/metrics")
            assert status == 200, f"/metrics answered {status}: {metrics[:500]}"
            for line in ('kode_gopher_build_info{version="', 'provider="kubernetes"} 1',
                         'kode_gopher_kubernetes_claims{state="ready"} 0'):
                assert line in metrics, f"/metrics from the image's daemon has no {line!r}:\n{metrics}"
        finally:
            daemon.kill()
            daemon.wait()
            log.close()


def check(store):
    failed = 0
    for name, run in (("kode-gopher-sandbox", check_sandbox), ("kode-gopherd", check_daemon),
                      ("sandbox-router", check_router)):
        try:
            run(store)
        except (AssertionError, Refused, subprocess.SubprocessError, OSError) as error:
            failed += 1
            print(f"FAIL {name}: {error}")
        else:
            print(f"ok   {name} ({digest_of(store, name)})")
    print(f"{len(IMAGES) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    if len(sys.argv) == 3 and sys.argv[1] == "unpack":
        try:
            for name in IMAGES:
                print(f"{name}: {unpack(sys.argv[2], name)}")
        except Refused as error:
            print(f"oci-run: {error}", file=sys.stderr)
            return 1
        return 0
    pass_fds = ()
    try:
        if len(sys.argv) in (4, 6) and sys.argv[1] == "pod":
            only_reach = sys.argv[3] if sys.argv[2] == "--only-reach" else None
            store, listen = sys.argv[-2], sys.argv[-1]
            if len(sys.argv) == 6 and not only_reach:
                print(__doc__, file=sys.stderr)
                return 2
            bundle = unpack(store, resolve(store, os.environ["KG_IMAGE"]))
            writable = [p for p in os.environ.get("KG_POD_WRITABLE", "").split(":") if p]
            if only_reach:
                listen, listener = pod_network.server_listener(listen)
                pass_fds = (listener.fileno(),)
                pod_network.isolate(only_reach)
            pod_args = json.loads(os.environ.get("KG_POD_ARGS") or "[]")
            command, _ = bwrap_command(bundle, args=pod_args, listen=listen, writable=writable)
        elif len(sys.argv) >= 4 and sys.argv[1] == "run" and "--" in sys.argv:
            store = sys.argv[2]
            split = sys.argv.index("--")
            options, args = sys.argv[3:split], sys.argv[split + 1:]
            readable = [options[i + 1] for i, o in enumerate(options) if o == "--bind-ro"]
            bundle = unpack(store, resolve(store, os.environ["KG_IMAGE"]))
            command, _ = bwrap_command(bundle, args=args, readable=readable)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (Refused, pod_network.PodNetworkError, OSError, ValueError) as error:
        print(f"oci-run: {error}", file=sys.stderr)
        return 1
    # A kubelet stops a container with SIGTERM: pass it on; bwrap's --die-with-parent does the rest.
    child = subprocess.Popen(command, pass_fds=pass_fds)
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
