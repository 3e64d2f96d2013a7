"""The small private network the sealed-credentials rows run in (issue 25), made of network
namespaces this run creates, so the host's own network is never touched:

  "daemons"   a network and mount namespace held by a `sleep` process: veth 198.51.100.2/24 and
              its own /etc/hosts (bind-mounted there only) naming storage.googleapis.com and
              gcs.kg-bench.example 198.51.100.1. The bench's daemons run here (nsenter), so
              their egress proxy resolves the real API host name to the fake, through the real
              system resolver. Their Unix sockets are reached from the host as usual.
  "internet"  a network namespace held by another `sleep`: veth 198.51.100.1/24 (a public-looking
              TEST-NET-2 address: the proxy refuses loopback and private ones), with
              fake-gcs-server over HTTPS on port 443 (a self-signed certificate made here for
              both names, which the daemons trust through [sandbox] egress_upstream_ca_file, as
              for a corporate TLS proxy's CA) and token_peer.py (the OAuth token and tokeninfo
              endpoints creds-adc calls) on port 8080.

Every process is a bench_processes.Tracked (the run's pid file, so run.sh's trap stops them); the
namespaces have no name and disappear with their last process. Needs root (as the bench does).
"""

import os
import subprocess
import time

import bench_processes

INTERNET = "198.51.100.1"
DAEMONS = "198.51.100.2"
STORAGE_HOST = "storage.googleapis.com"
TUNNEL_HOST = "gcs.kg-bench.example"  # allowed, not a Google API name: a blind CONNECT tunnel
TOKEN_PORT = 8080
EMAIL = "bench-user@kg-bench.example"


def _run(argv):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")


class SealedWorld:
    def __init__(self, work, pid_file, fake_gcs, bucket, objects):
        self.dir = os.path.join(work, "sealed-world")
        os.makedirs(self.dir, exist_ok=True)
        self.pid_file = pid_file
        self.processes = []
        self.hosts = os.path.join(self.dir, "hosts")
        with open(self.hosts, "w") as hosts:
            hosts.write(f"127.0.0.1 localhost\n{INTERNET} {STORAGE_HOST} {TUNNEL_HOST}\n")
        try:
            self._namespaces()
            self._certificate()
            self._fake_gcs(fake_gcs, bucket, objects)
            self._token_peer()
        except Exception:
            self.stop()
            raise

    def _holder(self, name, argv):
        process = bench_processes.Tracked(argv, os.path.join(self.dir, f"{name}.log"),
                                          self.pid_file)
        self.processes.append(process)
        return process

    def _namespaces(self):
        self.daemons = self._holder("daemons-ns", [
            "unshare", "--net", "--mount", "--propagation", "private", "sh", "-c",
            f"mount --bind {self.hosts} /etc/hosts && exec sleep infinity"])
        self.internet = self._holder("internet-ns", ["unshare", "--net", "sleep", "infinity"])
        deadline = time.monotonic() + 10
        while self.daemons_hosts_pending():
            if time.monotonic() > deadline or self.daemons.proc.poll() is not None:
                raise RuntimeError(f"the daemons' namespace did not come up; see {self.dir}")
            time.sleep(0.02)
        veth_d, veth_i = "kgb-d", "kgb-i"
        _run(self.in_daemons(["ip", "link", "add", veth_d, "type", "veth", "peer", "name",
                              veth_i, "netns", str(self.internet.pid)], mount=False))
        for ns, veth, address in ((self.daemons, veth_d, DAEMONS), (self.internet, veth_i, INTERNET)):
            enter = ["nsenter", f"--target={ns.pid}", "--net", "--"]
            _run(enter + ["ip", "link", "set", "lo", "up"])
            _run(enter + ["ip", "addr", "add", f"{address}/24", "dev", veth])
            _run(enter + ["ip", "link", "set", veth, "up"])

    def daemons_hosts_pending(self):
        """Whether the daemons' namespace still lacks its /etc/hosts (the sleep not yet exec'd)."""
        try:
            return os.readlink(f"/proc/{self.daemons.pid}/exe").rsplit("/", 1)[-1] != "sleep"
        except OSError:
            return True

    def in_daemons(self, argv, mount=True):
        """argv run inside the daemons' network (and, by default, mount) namespace."""
        return (["nsenter", f"--target={self.daemons.pid}", "--net"] +
                (["--mount"] if mount else []) + ["--"] + argv)

    def _certificate(self):
        self.cert = os.path.join(self.dir, "cert.pem")
        self.key = os.path.join(self.dir, "key.pem")
        _run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
              "-nodes", "-days", "2", "-keyout", self.key, "-out", self.cert,
              "-subj", f"/CN={STORAGE_HOST}",
              "-addext", f"subjectAltName=DNS:{STORAGE_HOST},DNS:{TUNNEL_HOST}"])
        with open(self.cert) as cert:
            self.cert_pem = cert.read()

    def _fake_gcs(self, binary, bucket, objects):
        seed = os.path.join(self.dir, "gcs-seed", bucket)
        os.makedirs(seed, exist_ok=True)
        for i in range(objects):
            with open(os.path.join(seed, f"object-{i:02d}.txt"), "w") as f:
                f.write(f"object {i}\n")
        self._holder("fake-gcs-server-https", [
            "nsenter", f"--target={self.internet.pid}", "--net", "--", binary,
            "-scheme", "https", "-host", INTERNET, "-port", "443", "-backend", "memory",
            "-data", os.path.join(self.dir, "gcs-seed"), "-public-host", STORAGE_HOST,
            "-cert-location", self.cert, "-private-key-location", self.key, "-log-level", "warn"])
        self._wait_listening(443, "fake-gcs-server-https")

    def _token_peer(self):
        here = os.path.dirname(os.path.abspath(__file__))
        self._holder("token-peer", [
            "nsenter", f"--target={self.internet.pid}", "--net", "--", "python3",
            os.path.join(here, "token_peer.py"), INTERNET, str(TOKEN_PORT), EMAIL])
        self._wait_listening(TOKEN_PORT, "token-peer")

    def _wait_listening(self, port, name):
        """Waits until INTERNET:port answers from the daemons' side (the path the proxy takes)."""
        probe = self.in_daemons(["bash", "-c", f"exec 3<>/dev/tcp/{INTERNET}/{port}"], mount=False)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if subprocess.run(probe, capture_output=True, timeout=10).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not listen on {INTERNET}:{port} within 30 s; see {self.dir}")

    def creds_config(self, mode):
        """The config sections of a daemon in this world: creds-adc in `mode` against the token
        peer, the allowlist (the default names plus the tunnel's), the fake's certificate trusted
        upstream."""
        adc = os.path.join(self.dir, "application_default_credentials.json")
        with open(adc, "w") as f:
            f.write('{"type": "authorized_user", "client_id": "bench", '
                    '"client_secret": "bench", "refresh_token": "bench-refresh"}')
        base = f"http://{INTERNET}:{TOKEN_PORT}"
        return {
            "sandbox": (f"network = allowlist\negress_upstream_ca_file = {self.cert}\n"
                        f"allowed_hosts = *.googleapis.com, accounts.google.com, {TUNNEL_HOST}\n"),
            "extra": ("[credentials]\nplugin = creds-adc\n"
                      f"[creds-adc]\nmode = {mode}\nadc_file = {adc}\nproject = bench-project\n"
                      f"token_url = {base}/token\ntokeninfo_url = {base}/tokeninfo\n"
                      f"userinfo_url = {base}/userinfo\n"),
        }

    def stop(self):
        for process in reversed(self.processes):
            process.stop(grace_s=5)
        self.processes = []
