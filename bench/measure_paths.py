"""The ways one program is run, each timed end to end by the client: through the daemon API, through
the CLI, and the two baselines (go build + exec in the same kind of sandbox with the same cache,
reached through that sandbox's own /execute; and go run on the host). Called from the main thread
and from throughput worker threads (each with its own session)."""

import json
import os
import shutil
import subprocess
import time

import toolchain_capture
import unix_http

BUILD_FLAGS = "-trimpath -buildvcs=false -ldflags='-s -w'"


class CallFailed(RuntimeError):
    pass


def _ms(start):
    return (time.monotonic() - start) * 1000


def request_body(files):
    return {"files": files} if len(files) > 1 or "main.go" not in files else {"code": files["main.go"]}


class Session:
    """A daemon session plus direct access to its sandbox (its socket and its /app on the host)."""

    def __init__(self, daemon, client="bench"):
        self.daemon = daemon
        info = unix_http.expect(daemon.socket, "POST", "/v1/sessions", {"client": client})
        self.id = info["id"]
        self.sandbox_id = info.get("sandbox_id")

    def ensure_sandbox(self):
        if not self.sandbox_id:
            info = unix_http.expect(self.daemon.socket, "GET", f"/v1/sessions/{self.id}")
            self.sandbox_id = info.get("sandbox_id")
        if not self.sandbox_id:
            raise CallFailed(f"session {self.id} has no sandbox yet")
        return self.daemon.sandbox_dir(self.sandbox_id)

    def close(self):
        try:
            unix_http.request(self.daemon.socket, "DELETE", f"/v1/sessions/{self.id}", timeout=30)
        except unix_http.ApiError:
            pass


# The compiled-go plugin's warning when its fast path (compile + link run directly) fell back to
# go build: the call still succeeded, and the bench counts how often it happened.
FALLBACK_WARNING = "built with go build"


def fallback_warnings(result):
    return [w for w in result.get("warnings") or [] if w.startswith(FALLBACK_WARNING)]


def failed(result):
    """is_error, except that a fast-path fallback warning alone is not a failure."""
    if not result.get("is_error"):
        return False
    others = [w for w in result.get("warnings") or [] if not w.startswith(FALLBACK_WARNING)]
    kind = (result.get("result") or {}).get("kind", "ok")
    return (result.get("status") != "ok" or result.get("exit_code", 0) != 0 or kind != "ok"
            or bool(others))


def api_call(session, files, extra=None):
    """POST /v1/sessions/{id}/execute; returns (wall ms, result)."""
    body = {**request_body(files), **(extra or {})}
    start = time.monotonic()
    result = unix_http.expect(session.daemon.socket, "POST",
                              f"/v1/sessions/{session.id}/execute", body)
    wall = _ms(start)
    if failed(result):
        raise CallFailed(f"call failed: status={result.get('status')} "
                         f"stderr={result.get('stderr', '')[:400]}")
    return wall, result


def one_shot_call(daemon, files):
    """POST /v1/execute (a session opened for this call and closed after it)."""
    start = time.monotonic()
    result = unix_http.expect(daemon.socket, "POST", "/v1/execute", request_body(files))
    wall = _ms(start)
    if failed(result):
        raise CallFailed(f"call failed: {result.get('status')} {result.get('stderr', '')[:400]}")
    return wall, result


def write_program(directory, files):
    os.makedirs(directory, exist_ok=True)
    for path, source in files.items():
        target = os.path.join(directory, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write(source)


def cli_call(cli, daemon, program_dir, files, session=None, runtime=None):
    """kode-gopher exec DIR --json (in `session` and with `--runtime` when given); returns
    wall ms."""
    write_program(program_dir, files)
    argv = [cli, "--config", daemon.config, "exec", "--json"]
    if runtime:
        argv += ["--runtime", runtime]
    if session:
        argv += ["--session", session.id]
    start = time.monotonic()
    # A CLI that finds no daemon starts one: the bench's own binary, never one from PATH.
    env = dict(os.environ, KODE_GOPHERD=daemon.paths["daemon"])
    done = subprocess.run(argv + [program_dir], capture_output=True, timeout=600, env=env)
    wall = _ms(start)
    if done.returncode != 0 and not _only_fallback_warnings(done.stdout):
        raise CallFailed(f"kode-gopher exec exited {done.returncode}: {done.stdout[-400:]!r} "
                         f"{done.stderr[-400:]!r}")
    return wall


def _only_fallback_warnings(json_stdout):
    """Whether a non-zero `kode-gopher exec --json` exit came only from fast-path fallback
    warnings (the CLI exits non-zero on any warning)."""
    try:
        result = json.loads(json_stdout)
    except ValueError:
        return False
    return isinstance(result, dict) and result.get("status") == "ok" and not failed(result)


def sandbox_root(session):
    """The sandbox's root as the host reaches it: /proc/<its pid 1>/root (its /app and /tmp are
    private tmpfs, visible nowhere else). Needs the bench to run as root, as run.sh does."""
    sandbox_dir = session.ensure_sandbox()
    with open(os.path.join(sandbox_dir, "bwrap.pid")) as f:
        bwrap = int(f.read())
    with open(f"/proc/{bwrap}/task/{bwrap}/children") as f:
        init = int(f.read().split()[0])
    return f"/proc/{init}/root"


def copy_app(session, target_rel, nonce_line):
    """Copies the sandbox's /app (the daemon's normalized program of the last call) to the
    sandbox's /tmp/<target_rel>, without result.json, the /app/persist link, go.mod and go.sum, with `nonce_line`
    appended to main.go (None: keep the copy unchanged if it exists). The copy runs inside the
    sandbox (its own /execute, not timed), so its files belong to the sandbox's user: the host's
    root cannot create files on the sandbox's tmpfs when that user maps to another host uid."""
    directory = f"/tmp/{target_rel}"
    keep = "true" if nonce_line is None else "false"
    command = (f"if {keep} && [ -d {directory} ]; then exit 0; fi; "
               f"rm -rf {directory} && mkdir -p {directory} && cp -R /app/. {directory}/ && "
               f"rm -rf {directory}/.kode-gopher {directory}/persist {directory}/go.mod {directory}/go.sum")
    if nonce_line is not None:
        command += f" && printf '\\n// %s\\n' '{nonce_line}' >> {directory}/main.go"
    result = unix_http.expect(_sandbox_socket(session), "POST", "/execute",
                              {"command": command, "timeout_ms": 60000})
    if result.get("exit_code") != 0:
        raise CallFailed(f"copying /app in the sandbox failed: {result.get('stderr', '')[-400:]}")


def _sandbox_socket(session):
    return os.path.join(session.ensure_sandbox(), "sandbox.sock")


def sandbox_build_exec(session, target_rel):
    """go build + exec through the sandbox's own /execute: the same sandbox, toolchain, flags and
    cache as the daemon's build. Returns wall ms."""
    sock = _sandbox_socket(session)
    directory = f"/tmp/{target_rel}"
    command = (f"cd {directory} && cp /opt/kode-gopher/lockfile/go.mod "
               f"/opt/kode-gopher/lockfile/go.sum . && go build {BUILD_FLAGS} -o prog . && "
               f"exec ./prog")
    start = time.monotonic()
    result = unix_http.expect(sock, "POST", "/execute",
                              {"command": command, "timeout_ms": 300000})
    wall = _ms(start)
    if result.get("exit_code") != 0:
        raise CallFailed(f"sandbox go build + exec failed: {result.get('stderr', '')[-400:]}")
    return wall


def host_env(cacheprog, base_cache, base_modcache, upper_dir):
    """The go command's environment on the host: the sandbox's settings (no proxy, no cgo, the
    base module cache) and the same base build cache through the same GOCACHEPROG layer."""
    return dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local",
                GOTELEMETRY="off", CGO_ENABLED="0", GOMODCACHE=base_modcache,
                GOCACHEPROG=f"{cacheprog} -base {base_cache} -upper {upper_dir}")


def sandbox_execute(session, command, timeout_ms=300000):
    """One command through the sandbox's own /execute; returns (client wall ms, its result)."""
    start = time.monotonic()
    result = unix_http.expect(_sandbox_socket(session), "POST", "/execute",
                              {"command": command, "timeout_ms": timeout_ms})
    return _ms(start), result


def capture_command(directory, nonce_line, output):
    # The edit makes the user's package a cache miss, so -x shows its compile.
    return (f"cd {directory} && printf '\\n// %s\\n' '{nonce_line}' >> main.go && "
            f"go build -x -work {BUILD_FLAGS} -o {output} .")


def sandbox_compile_link_alone(session, target_rel, nonce_line):
    """Compiler + linker alone in the sandbox: `go build -x -work` of /tmp/<target_rel> (a copy
    the baseline built, so it has go.mod) after a one-line edit, not timed, gives the compile of
    the user's package and the link with their flags and importcfg files; they then run directly
    in one /execute, then again with the fast path's flags (toolchain_capture.FAST_PATH_*).
    Returns ({"compile": (wall ms, CPU ms), "link": (..), "compile_fast": .., "link_fast": ..},
    /execute wall ms)."""
    directory = f"/tmp/{target_rel}"
    _, captured = sandbox_execute(session, capture_command(directory, nonce_line,
                                                            f"{directory}-alone-prog"))
    if captured.get("exit_code") != 0:
        raise CallFailed(f"go build -x -work in the sandbox failed: {captured.get('stderr', '')[-400:]}")
    command = toolchain_capture.compile_link_command(captured.get("stderr", ""), fast_path_flags=True)
    wall, ran = sandbox_execute(session, command)
    if ran.get("exit_code") != 0:
        raise CallFailed(f"compile + link alone in the sandbox failed: {ran.get('stderr', '')[-400:]}")
    return toolchain_capture.parse_steps(ran.get("stdout", "")), wall


def host_go_run(env, lockfile_dir, directory, files_from, nonce_line):
    """go run on the host in `directory` (a copy of `files_from` with the lockfile's go.mod and
    go.sum); returns wall ms."""
    prepare_host_copy(lockfile_dir, directory, files_from, nonce_line)
    start = time.monotonic()
    done = subprocess.run(["go", "run", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "."],
                          cwd=directory, env=env, capture_output=True, timeout=600)
    wall = _ms(start)
    if done.returncode != 0:
        raise CallFailed(f"go run failed: {done.stderr[-400:]!r}")
    return wall


def prepare_host_copy(lockfile_dir, directory, files_from, nonce_line):
    """`directory` := a copy of `files_from` (a sandbox's program, through its root) with the
    lockfile's go.mod and go.sum and `nonce_line` appended to main.go; None keeps an existing
    copy unchanged."""
    if nonce_line is not None or not os.path.isdir(directory):
        shutil.rmtree(directory, ignore_errors=True)
        shutil.copytree(files_from, directory,
                        ignore=shutil.ignore_patterns(".kode-gopher", "go.mod", "go.sum"))
        for name in ("go.mod", "go.sum"):
            shutil.copy(os.path.join(lockfile_dir, name), directory)
        if nonce_line is not None:
            with open(os.path.join(directory, "main.go"), "a") as f:
                f.write(f"\n// {nonce_line}\n")
        # A wrapped snippet's generated main writes /app/.kode-gopher/result.json: on the host it
        # writes into the copy instead.
        wrapper = os.path.join(directory, "kg_wrapper.go")
        if os.path.exists(wrapper):
            with open(wrapper) as f:
                text = f.read().replace('"/app/.kode-gopher"', f'"{directory}/.kode-gopher"')
            with open(wrapper, "w") as f:
                f.write(text)


# A -toolexec wrapper that logs each tool run's wall time: "<tool> <ms> <v>", v when it only
# printed its version (the go command asks each tool for its id).
_STEP_TIMER = """#!/bin/sh
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
case " $* " in *" -V=full "*) kind=v ;; *) kind=run ;; esac
echo "$(basename "$1") $(( (end - start) / 1000 )) $kind" >> "$KG_STEP_LOG"
exit $status
"""


def host_build_steps(env, directory, work, nonce_line):
    """go build (same flags) of the program in `directory` (prepared by host_go_run) after a
    one-line edit, with every compile and link timed; returns {compile_ms, link_ms, go_build_ms}:
    the compiles and links that did work, and the whole go build."""
    timer = os.path.join(work, "step-timer.sh")
    if not os.path.exists(timer):
        with open(timer, "w") as f:
            f.write(_STEP_TIMER)
        os.chmod(timer, 0o755)
    log_path = os.path.join(work, "step-timer.log")
    if os.path.exists(log_path):
        os.remove(log_path)
    with open(os.path.join(directory, "main.go"), "a") as f:
        f.write(f"\n// {nonce_line}\n")
    start = time.monotonic()
    done = subprocess.run(["go", "build", "-toolexec", timer, "-trimpath", "-buildvcs=false",
                           "-ldflags=-s -w", "-o", os.path.join(work, "steps-prog"), "."],
                          cwd=directory, env=dict(env, KG_STEP_LOG=log_path),
                          capture_output=True, timeout=600)
    wall = _ms(start)
    if done.returncode != 0:
        raise CallFailed(f"go build -toolexec failed: {done.stderr[-400:]!r}")
    steps = {"compile_ms": 0.0, "link_ms": 0.0, "go_build_ms": round(wall, 1)}
    with open(log_path) as f:
        for line in f:
            tool, micros, kind = line.split()
            if kind == "run" and f"{tool}_ms" in steps:
                steps[f"{tool}_ms"] += int(micros) / 1000
    return {name: round(value, 1) for name, value in steps.items()}


def host_yaegi_cli(yaegi, work, name, files_from):
    """The upstream yaegi CLI (cmd/yaegi at the runner's pinned version, standard library symbols
    only) on the host, over the same program host_go_run prepared in `files_from`: the CLI runs a
    folder only from a GOPATH, so the files are copied to <work>/yaegi-gopath/src/<name> first
    (not timed). Returns (wall ms, stdout)."""
    gopath = os.path.join(work, "yaegi-gopath")
    directory = os.path.join(gopath, "src", name)
    shutil.rmtree(directory, ignore_errors=True)
    shutil.copytree(files_from, directory,
                    ignore=shutil.ignore_patterns(".kode-gopher", "go.mod", "go.sum"))
    env = dict(os.environ, GOPATH=gopath, GO111MODULE="off")
    start = time.monotonic()
    # -syscall: the snippet wrapper imports syscall (its result file); -unrestricted: os.Exit
    # exits as in compiled Go.
    done = subprocess.run([yaegi, "run", "-syscall", "-unrestricted", name], cwd=work, env=env,
                          capture_output=True, timeout=600)
    wall = _ms(start)
    if done.returncode != 0:
        raise CallFailed(f"yaegi run failed: {done.stdout[-200:]!r} {done.stderr[-400:]!r}")
    return wall, done.stdout.decode(errors="replace")
