"""The two places issue 15's profile measures the same work in: a session's sandbox (commands
through its own runtime API /execute, so every command pays what a daemon's command pays) and
the host (the same toolchain, flags, lockfile and base build cache through the same GOCACHEPROG,
commands through `sh -c`). Each place runs a shell command and returns the same fields, so
profile_probes.py measures both with one piece of code."""

import os
import subprocess
import time
from dataclasses import dataclass

import measure_paths as mp


@dataclass
class Ran:
    wall_ms: float           # the client's wall time: /execute round trip, or the sh process
    stdout: str
    stderr: str
    exit_code: int
    server_ms: float = None  # the sandbox server's own duration_ms (sandbox only)


class SandboxPlace:
    name = "sandbox"

    def __init__(self, session):
        self.session = session

    def program_dir(self, key):
        return f"/tmp/pf-{key}"

    def prepare(self, key, nonce_line):
        """/tmp/pf-<key>: the daemon's normalized program of the session's last call, edited,
        with the lockfile's go.mod and go.sum (not timed)."""
        mp.copy_app(self.session, f"pf-{key}", nonce_line)
        self.check(f"cp /opt/kode-gopher/lockfile/go.mod /opt/kode-gopher/lockfile/go.sum "
                   f"{self.program_dir(key)}/")

    def run(self, command):
        wall, result = mp.sandbox_execute(self.session, command)
        return Ran(wall, result.get("stdout", ""), result.get("stderr", ""),
                   result.get("exit_code", -1), result.get("duration_ms"))

    def check(self, command):
        ran = self.run(command)
        if ran.exit_code != 0:
            raise mp.CallFailed(f"in the sandbox, {command[:120]!r} failed: {ran.stderr[-400:]}")
        return ran

    def read(self, path):
        """A file of the sandbox's private tmpfs, through its root (the bench runs as root)."""
        with open(mp.sandbox_root(self.session) + path) as f:
            return f.read()


class HostPlace:
    name = "host"

    def __init__(self, env, work, lockfile_dir, sandbox_place):
        self.env = env
        # The same without GOCACHEPROG: a plain GOCACHE of the host's own, filled by the
        # warm-up repetition, to tell the cacheprog's share of the go command's cache lookups.
        self.native_cache_env = {k: v for k, v in env.items() if k != "GOCACHEPROG"}
        self.native_cache_env["GOCACHE"] = os.path.join(work, "host-native-gocache")
        self.work = work
        self.lockfile_dir = lockfile_dir
        self.sandbox_place = sandbox_place

    def program_dir(self, key):
        return os.path.join(self.work, "host-profile", key)

    def prepare(self, key, nonce_line):
        """The sandbox's /tmp/pf-<key> (prepared first), copied with the same go.mod and go.sum."""
        root = mp.sandbox_root(self.sandbox_place.session)
        mp.prepare_host_copy(self.lockfile_dir, self.program_dir(key),
                             root + self.sandbox_place.program_dir(key), nonce_line)

    def run(self, command, env=None):
        start = time.monotonic()
        done = subprocess.run(["sh", "-c", command], env=env or self.env, capture_output=True,
                              text=True, timeout=600)
        return Ran((time.monotonic() - start) * 1000, done.stdout, done.stderr, done.returncode)

    def check(self, command, env=None):
        ran = self.run(command, env)
        if ran.exit_code != 0:
            raise mp.CallFailed(f"on the host, {command[:120]!r} failed: {ran.stderr[-400:]}")
        return ran

    def read(self, path):
        with open(path) as f:
            return f.read()
