#!/usr/bin/env python3
"""What the sandbox adds to every command: /execute round trips against two sandbox servers.

Runs each given kode-gopher-sandbox binary the way the local provider does where it matters
here: alone in a pid namespace as pid 1 (bubblewrap --as-pid-1, --reap-strays), in a cgroup
`server` of its own, and handed cgroup.procs descriptors of a sibling `commands` cgroup
(--command-cgroup-fd, memory and pids on cgroup v1; one cgroup on v2). Then it sends
POST /execute {"command": "true"} to each in turn, interleaved, and reports the client's wall
time per command, median and p95 (nearest rank):

  idle    a command after --gap-ms of quiet (what a call pays once commands are apart);
  second  the second of two commands sent back to back after the quiet (a compiled call's
          build then run).

--no-cgroup LABEL runs that server without command cgroups (no migration at all): the floor.

Needs root (it makes cgroups under its own) and bwrap. Usage:

  sudo scripts/measure-command-cost.py --server before=/path/old --server after=build/.../kode-gopher-sandbox
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(60)
        self.sock.connect(self.path)


def own_cgroup_dirs():
    """(version, [dirs]) of this process's cgroup in the memory and pids hierarchies (v1), or
    its one v2 cgroup."""
    paths = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                paths[c] = path
    mounts = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            after = fields[fields.index("-") + 1:]
            fstype, options = after[0], after[2].split(",")
            if fstype == "cgroup":
                for c in ("memory", "pids"):
                    if c in options:
                        mounts[c] = (fields[3], fields[4])
            elif fstype == "cgroup2":
                mounts.setdefault("", (fields[3], fields[4]))
    if "memory" in mounts and "memory" in paths:
        dirs = []
        for c in ("memory", "pids"):
            if c in mounts and c in paths:
                root, point = mounts[c]
                dirs.append(point + paths[c][len(root.rstrip("/")):] if root != "/" else point + paths[c])
        return "v1", dirs
    root, point = mounts[""]
    return "v2", [point + paths[""]]


class Sandbox:
    def __init__(self, label, binary, bwrap, scratch, with_cgroup=True):
        self.label = label
        version, parents = own_cgroup_dirs()
        self.dirs = [os.path.join(p, f"kg-cmdcost-{os.getpid()}-{label}") for p in parents]
        for d in self.dirs:
            for sub in ("", "server", "commands"):
                os.makedirs(os.path.join(d, sub), exist_ok=True)
        memory_dir = os.path.join(self.dirs[0], "commands")
        if version == "v1":
            with open(os.path.join(memory_dir, "memory.limit_in_bytes"), "w") as f:
                f.write(str(1 << 30))
        self.workdir = os.path.join(scratch, label)
        os.makedirs(self.workdir)
        self.socket_path = os.path.join(scratch, label + ".sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.socket_path)
        listener.listen(16)
        command_fds = [os.open(os.path.join(d, "commands", "cgroup.procs"), os.O_WRONLY)
                       for d in self.dirs] if with_cgroup else []
        server_procs = [os.path.join(d, "server", "cgroup.procs") for d in self.dirs]

        def join_server_cgroup():
            for path in server_procs:
                with open(path, "w") as f:
                    f.write("0")

        argv = [bwrap, "--unshare-pid", "--as-pid-1", "--die-with-parent", "--dev-bind", "/", "/",
                "--proc", "/proc", binary, "--listen", f"fd:{listener.fileno()}",
                "--workdir", self.workdir, "--reap-strays"]
        for fd in command_fds:
            argv += ["--command-cgroup-fd", str(fd)]
        self.process = subprocess.Popen(argv, pass_fds=[listener.fileno(), *command_fds],
                                        preexec_fn=join_server_cgroup,
                                        stderr=open(os.path.join(scratch, label + ".log"), "w"))
        listener.close()
        for fd in command_fds:
            os.close(fd)
        self.connection = UnixHTTPConnection(self.socket_path)
        self.execute("true")  # up, and its first command (a launcher's one migration) done

    def execute(self, command):
        start = time.perf_counter()
        self.connection.request("POST", "/execute", body=json.dumps({"command": command}),
                                headers={"Content-Type": "application/json"})
        response = self.connection.getresponse()
        body = response.read()
        wall_ms = (time.perf_counter() - start) * 1000
        if response.status != 200 or json.loads(body)["exit_code"] != 0:
            raise RuntimeError(f"{self.label}: /execute failed: {response.status} {body[:300]!r}")
        return wall_ms

    def close(self):
        self.connection.close()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        for d in self.dirs:
            for sub in ("server", "commands", ""):
                path = os.path.join(d, sub)
                for _ in range(100):
                    try:
                        os.rmdir(path)
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.02)


def summary(values):
    ordered = sorted(values)
    median = ordered[len(ordered) // 2] if len(ordered) % 2 else (ordered[len(ordered) // 2 - 1] + ordered[len(ordered) // 2]) / 2
    p95 = ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]
    return median, p95


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", action="append", required=True, help="LABEL=BINARY")
    parser.add_argument("--no-cgroup", action="append", default=[], metavar="LABEL")
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--gap-ms", type=float, default=100)
    parser.add_argument("--bwrap", default=shutil.which("bwrap"))
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="kg-cmdcost-")
    sandboxes = []
    try:
        for spec in args.server:
            label, binary = spec.split("=", 1)
            sandboxes.append(Sandbox(label, os.path.abspath(binary), args.bwrap, scratch,
                                     with_cgroup=label not in args.no_cgroup))
        results = {s.label: {"idle": [], "second": []} for s in sandboxes}
        for rep in range(args.reps):
            order = sandboxes if rep % 2 == 0 else list(reversed(sandboxes))
            for sandbox in order:
                time.sleep(args.gap_ms / 1000)
                results[sandbox.label]["idle"].append(sandbox.execute("true"))
                time.sleep(args.gap_ms / 1000)
                sandbox.execute("true")
                results[sandbox.label]["second"].append(sandbox.execute("true"))
        print(f"{args.reps} repetitions, {args.gap_ms:g} ms of quiet before each measured command; "
              "wall ms of POST /execute {\"command\": \"true\"}: median / p95")
        for label, rows in results.items():
            for kind, values in rows.items():
                median, p95 = summary(values)
                print(f"  {label:>8} {kind:>6}: {median:6.2f} / {p95:6.2f}")
    finally:
        for sandbox in sandboxes:
            sandbox.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
