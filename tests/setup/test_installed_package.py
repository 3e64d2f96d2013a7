#!/usr/bin/env python3
"""The installed Debian package, tested as a user meets it (docs/install.md).

Checks that the package holds the layout install.md promises (binaries, plugins, helpers, the
systemd user units, the default config as a conffile), that the units are well-formed and start
the installed daemon, and runs examples through that daemon started by socket activation, the way
kode-gopher.socket starts it (systemd-socket-activate speaks the same protocol). The prewarmed Go
caches of the test suites (build/tests/integration) are reused when present, so a compiled call
does not rebuild them.

Usage: test_installed_package.py PACKAGE.deb   (after installing it; run by scripts/test-package.sh)
"""
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNITS = pathlib.Path("/usr/lib/systemd/user")


def fail(message):
    print(f"test_installed_package: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(args, env=None, timeout=600, check=True):
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        fail(f"{' '.join(map(str, args))} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def check_contents(deb):
    built = run(["dpkg-deb", "-f", deb, "Version"]).stdout.strip()
    installed = run(["dpkg-query", "-W", "-f=${Version}", "kode-gopher"]).stdout.strip()
    if built != installed:
        fail(f"the installed kode-gopher is {installed}, not the {built} just built ({deb})")
    files = set(run(["dpkg", "-L", "kode-gopher"]).stdout.split())
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
    wanted = ["/usr/bin/kode-gopher", "/usr/bin/kode-gopherd",
              str(UNITS / "kode-gopher.socket"), str(UNITS / "kode-gopher.service"),
              "/etc/kode-gopher/kode-gopher.ini", "/usr/share/doc/kode-gopher/install.md",
              "/usr/share/kode-gopher/lockfile/go.mod"]
    wanted += [f"/usr/lib/{multiarch}/kode-gopher/plugins/{name}.so"
               for name in ("compiled-go", "yaegi", "creds-adc", "creds-workload")]
    helpers = ["kode-gopher-sandbox", "kode-gopher-cacheprog", "kode-gopher-fastbuild",
               "kode-gopher-yaegi"]
    for helper in helpers:
        if not any(f.endswith("/kode-gopher/" + helper) for f in files):
            fail(f"the package has no {helper}")
    missing = [path for path in wanted if path not in files]
    if missing:
        fail(f"the package lacks {missing}")
    conffiles = run(["dpkg-query", "-W", "-f=${Conffiles}", "kode-gopher"]).stdout
    if "/etc/kode-gopher/kode-gopher.ini" not in conffiles:
        fail("/etc/kode-gopher/kode-gopher.ini is not a conffile (an upgrade would overwrite edits)")
    service = (UNITS / "kode-gopher.service").read_text()
    if "ExecStart=/usr/bin/kode-gopherd" not in service:
        fail(f"kode-gopher.service does not start the installed daemon:\n{service}")
    # systemd's own reading of the units (no running systemd needed; --user wants a runtime dir).
    with tempfile.TemporaryDirectory(prefix="kg-units-") as runtime_dir:
        verify = run(["systemd-analyze", "verify", "--user", str(UNITS / "kode-gopher.socket"),
                      str(UNITS / "kode-gopher.service")],
                     env={**os.environ, "XDG_RUNTIME_DIR": runtime_dir}, check=False)
    if verify.returncode != 0:
        fail(f"systemd-analyze verify refused the units:\n{verify.stdout}{verify.stderr}")
    run(["/usr/bin/kode-gopherd", "--check-config", "/etc/kode-gopher/kode-gopher.ini"])
    print("test_installed_package: contents, conffile, units and default config ok")


def wait_for_socket(path, daemon, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if daemon.poll() is not None:
            return False
        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(str(path))
                return True
        except OSError:
            time.sleep(0.1)
    return False


def check_activated_daemon():
    with tempfile.TemporaryDirectory(prefix="kg-package-") as tmp:
        tmp = pathlib.Path(tmp)
        tmp.chmod(0o755)  # a root daemon's sandboxes run as uid 65534 and read its state dir
        runtime_dir = tmp / "run"
        (runtime_dir / "kode-gopher").mkdir(parents=True, mode=0o700)
        runtime_dir.chmod(0o700)
        home = tmp / "home"
        home.mkdir()
        # The unit's ListenStream=%t/kode-gopher/daemon.sock with %t = XDG_RUNTIME_DIR.
        sock = runtime_dir / "kode-gopher" / "daemon.sock"
        config = tmp / "kode-gopher.ini"
        lines = ["[daemon]", f"state_dir = {tmp / 'state'}", "[sandbox]", "warm_pool = 0"]
        caches = ROOT / "build" / "tests" / "integration"
        if (caches / "gocache-base").is_dir():
            lines += [f"base_cache_dir = {caches / 'gocache-base'}",
                      f"base_modcache_dir = {caches / 'gomodcache-base'}"]
        config.write_text("\n".join(lines) + "\n")
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime_dir),
               "KODE_GOPHER_CONFIG": str(config)}
        log = (tmp / "daemon.log").open("w")
        # Like the user manager, which gives the service XDG_RUNTIME_DIR and HOME (the launcher
        # passes a child only the variables named with -E).
        passed = [arg for name in env for arg in ("-E", name)]
        daemon = subprocess.Popen(["systemd-socket-activate", "-l", str(sock), *passed,
                                   "/usr/bin/kode-gopherd"], env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
        try:
            if not wait_for_socket(sock, daemon):
                fail("the socket was not made:\n" + (tmp / "daemon.log").read_text())
            hello = run(["/usr/bin/kode-gopher", "exec", str(ROOT / "examples" / "hello")],
                        env=env, check=False)
            if hello.returncode != 0:
                daemon_log = tmp / "state" / "daemon.log"
                fail(f"examples/hello through the installed daemon exited {hello.returncode}:\n"
                     f"{hello.stdout}{hello.stderr}\nlauncher:\n{(tmp / 'daemon.log').read_text()}"
                     + (f"\ndaemon log:\n{daemon_log.read_text()[-3000:]}" if daemon_log.exists() else ""))
            if "Hello from" not in hello.stdout:
                fail(f"examples/hello through the installed daemon printed:\n{hello.stdout}")
            snippet = run(["/usr/bin/kode-gopher", "exec", "--runtime", "yaegi",
                           str(ROOT / "examples" / "snippet")], env=env)
            if "runtime=yaegi" not in snippet.stdout or '"kind": "ok"' not in snippet.stdout:
                fail(f"examples/snippet under yaegi printed:\n{snippet.stdout}")
            plugins = run(["/usr/bin/kode-gopher", "plugins"], env=env).stdout
            if "/usr/lib/" not in plugins or "ready" not in plugins:
                fail(f"the installed daemon did not load the installed plugins:\n{plugins}")
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=90)
            log.close()
        text = (tmp / "daemon.log").read_text()
        if (tmp / "state" / "daemon.log").exists():
            text += (tmp / "state" / "daemon.log").read_text()
        if "(socket from systemd)" not in text:
            fail("the daemon did not take the socket it was handed:\n" + text)
        if not sock.exists():
            fail("the daemon removed the socket unit's file when it stopped")
        print("test_installed_package: examples ran through the socket-activated installed daemon")

        # A config naming another socket than the unit's: the daemon says so and stops.
        with config.open("a") as more:
            more.write(f"[daemon]\nsocket = {tmp / 'elsewhere.sock'}\n")
        sock.unlink()
        launcher = subprocess.Popen(["systemd-socket-activate", "-l", str(sock), *passed,
                                     "/usr/bin/kode-gopherd"], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
        try:
            wait_for_socket(sock, launcher)  # the first connection execs the daemon
            output, _ = launcher.communicate(timeout=60)
        finally:
            launcher.kill()
        if launcher.returncode == 0 or "make the socket unit's ListenStream=" not in output \
                or str(tmp / "elsewhere.sock") not in output:
            fail(f"a daemon handed another socket than its config names did not say so:\n{output}")
        print("test_installed_package: a socket that disagrees with the config is refused clearly")


def main():
    if len(sys.argv) != 2:
        fail(__doc__)
    check_contents(sys.argv[1])
    check_activated_daemon()


if __name__ == "__main__":
    main()
