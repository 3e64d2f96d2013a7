"""The processes a benchmark run starts: kode-gopherd daemons (each with its own config and state
dir) and fake-gcs-server. Every start is recorded in a pid file that bench/run.sh's trap reads, so
nothing outlives the run even when this program is killed. Called from the main thread only."""

import os
import signal
import socket
import subprocess
import time

import unix_http


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_kib(pid):
    """VmRSS of one process in KiB (the daemon alone, not its sandboxes), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Tracked:
    """A child process in its own process group, recorded in the run's pid file."""

    def __init__(self, argv, log_path, pid_file, env=None):
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        with open(pid_file, "a") as pids:
            pids.write(f"{self.proc.pid}\n")

    @property
    def pid(self):
        return self.proc.pid

    def stop(self, grace_s=15):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()


class Daemon:
    """One kode-gopherd with a bench config: `network` is "none" (the default), "host" or
    "allowlist"; `sandbox_keys` and `extra_sections` are added to its config (sealed_world.py's
    credentials), and `wrap` (argv -> argv) runs it elsewhere (inside sealed_world's namespaces)."""

    def __init__(self, name, work, paths, network="none", max_sessions=16, sandbox_keys="",
                 extra_sections="", wrap=None):
        self.name = name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.socket = os.path.join(self.dir, "daemon.sock")
        self.state_dir = os.path.join(self.dir, "state")
        self.config = os.path.join(self.dir, "kode-gopher.ini")
        self.paths = paths
        self.process = None
        self.wrap = wrap or (lambda argv: argv)
        with open(self.config, "w") as config:
            config.write(
                f"[daemon]\nsocket = {self.socket}\nstate_dir = {self.state_dir}\n"
                f"log_level = warn\nmax_sessions = {max_sessions}\n"
                f"[sandbox]\nbase_cache_dir = {paths['base_cache']}\n"
                f"base_modcache_dir = {paths['base_modcache']}\nnetwork = {network}\n"
                f"{sandbox_keys}"
                "[limits]\nrun_timeout_ms = 60000\nbuild_timeout_ms = 300000\n"
                f"{extra_sections}")

    def start(self, pid_file, timeout_s=120):
        """Starts the daemon and returns the ms until /v1/health answers."""
        started = time.monotonic()
        self.process = Tracked(self.wrap([self.paths["daemon"], "--config", self.config]),
                               os.path.join(self.dir, "daemon.log"), pid_file)
        deadline = started + timeout_s
        while time.monotonic() < deadline:
            if self.process.proc.poll() is not None:
                raise RuntimeError(f"kode-gopherd ({self.name}) exited while starting; see "
                                   f"{self.dir}/daemon.log")
            try:
                status, _ = unix_http.request(self.socket, "GET", "/v1/health", timeout=5)
                if status == 200:
                    return (time.monotonic() - started) * 1000
            except unix_http.ApiError:
                pass
            time.sleep(0.005)
        raise RuntimeError(f"kode-gopherd ({self.name}) did not answer within {timeout_s} s")

    def wait_for_warm_pool(self, timeout_s=120):
        """Waits until /v1/health reports a started sandbox ready ([sandbox] warm_pool);
        returns the ms waited, or None when the daemon keeps no pool."""
        started = time.monotonic()
        while time.monotonic() < started + timeout_s:
            _, health = unix_http.request(self.socket, "GET", "/v1/health", timeout=5)
            if "warm_sandboxes" not in (health or {}):
                return None
            if health["warm_sandboxes"] >= 1:
                return (time.monotonic() - started) * 1000
            time.sleep(0.01)
        raise RuntimeError(f"kode-gopherd ({self.name}) started no pooled sandbox within {timeout_s} s")

    def stop(self):
        if self.process:
            self.process.stop()
            self.process = None

    def rss_kib(self):
        return rss_kib(self.process.pid) if self.process else None

    def sandbox_dir(self, sandbox_id):
        return os.path.join(self.state_dir, "sandboxes", sandbox_id)


class FakeGcs:
    """fake-gcs-server on 127.0.0.1 with an in-memory backend seeded from a folder."""

    def __init__(self, binary, work, pid_file, bucket, objects):
        seed = os.path.join(work, "gcs-seed", bucket)
        os.makedirs(seed, exist_ok=True)
        for i in range(objects):
            with open(os.path.join(seed, f"object-{i:02d}.txt"), "w") as f:
                f.write(f"object {i}\n")
        self.port = free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.process = Tracked(
            [binary, "-scheme", "http", "-host", "127.0.0.1", "-port", str(self.port),
             "-backend", "memory", "-data", os.path.join(work, "gcs-seed"),
             "-public-host", self.host, "-log-level", "warn"],
            os.path.join(work, "fake-gcs-server.log"), pid_file)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("fake-gcs-server did not listen within 30 s; see fake-gcs-server.log")

    def stop(self):
        self.process.stop()
