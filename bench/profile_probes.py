"""The measurements of issue 15's profile, each run the same way in the sandbox and on the host
(profile_places.py). Every function returns {metric: ms}; the program of `key` has been
prepared in the place (profile_places.*.prepare) before the build probes run."""

import re
import shlex
import time

import measure_paths as mp
import toolchain_capture

FLAGS = mp.BUILD_FLAGS
PROCESS_STARTS = 20           # /bin/true runs per process-start probe
SYSCALL_BYTES = 100_000       # dd bs=1: one read and one write per byte
IDLE_S = 0.3                  # the pause before the "after idle" command


def _edit(directory, nonce):
    # printf is a shell builtin: the edit costs no process start.
    return f"printf '\\n// %s\\n' '{nonce}' >> {directory}/main.go"


GO_BUILD_ARGV = ["go", "build", *shlex.split(FLAGS), "-o", "prog", "."]


def go_build(place, key, nonce):
    """A plain go build after a one-line edit (what the daemon's build command runs): the
    command's wall time, and the go process's own wall and CPU time (with its children: the
    compile, the link and the cacheprog)."""
    d = place.program_dir(key)
    ran = place.check(f"{_edit(d, nonce)} && " +
                      toolchain_capture.timer_command(d, [("go_build", {}, GO_BUILD_ARGV)]))
    wall, cpu = toolchain_capture.parse_steps(ran.stdout)["go_build"]
    return {"go_build": ran.wall_ms, "go_build_process": wall, "go_build_cpu": cpu}


def traced_go_build(place, key, nonce):
    """go build -debug-trace after a one-line edit: the go command's own phases."""
    d = place.program_dir(key)
    trace = f"{d}-trace.json"
    ran = place.check(f"{_edit(d, nonce)} && cd {d} && go build -debug-trace={trace} {FLAGS} "
                      f"-o prog .")
    phases = toolchain_capture.trace_phases(place.read(trace))
    out = {"traced_go_build": ran.wall_ms, "actions": phases.pop("actions")}
    out.update({f"trace_{name}": value for name, value in phases.items()})
    # Starting the go process (and, in the sandbox, the /execute around it) and its exit.
    out["outside_trace"] = ran.wall_ms - phases["command"]
    return out


def native_cache_go_build(place, key, nonce):
    """Host only: traced_go_build with a plain GOCACHE instead of GOCACHEPROG."""
    if place.name != "host":
        return {}
    d = place.program_dir(key)
    trace = f"{d}-native-trace.json"
    ran = place.check(f"{_edit(d, nonce)} && cd {d} && go build -debug-trace={trace} {FLAGS} "
                      f"-o prog .", env=place.native_cache_env)
    phases = toolchain_capture.trace_phases(place.read(trace))
    return {"native_go_build": ran.wall_ms, "native_trace_load": phases["load"],
            "native_trace_dep_checks": phases["dep_checks"],
            "native_trace_cache_checks": phases["cache_checks"]}


def run_program(place, key, _nonce):
    d = place.program_dir(key)
    return {"run_program": place.check(f"cd {d} && exec ./prog").wall_ms}


def compile_link_alone(place, key, nonce):
    """The user package's compile and the link, run directly with go build's flags and
    importcfg (captured with -x -work after an edit, not timed)."""
    d = place.program_dir(key)
    captured = place.check(mp.capture_command(d, nonce, f"{d}-alone-prog"))
    ran = place.check(toolchain_capture.compile_link_command(captured.stderr))
    steps = toolchain_capture.parse_steps(ran.stdout)
    (compile_ms, compile_cpu), (link_ms, link_cpu) = steps["compile"], steps["link"]
    return {"compile_alone": compile_ms, "link_alone": link_ms,
            "compile_link_alone": compile_ms + link_ms, "compile_alone_cpu": compile_cpu,
            "link_alone_cpu": link_cpu, "compile_link_alone_cpu": compile_cpu + link_cpu,
            "compile_link_alone_command": ran.wall_ms}


def empty_command(place, _key, _nonce):
    """`true` (a shell builtin: one sh process, nothing else) back to back and after a pause:
    the fixed cost of one command (in the sandbox: HTTP on its socket, fork, joining the
    commands' cgroup, seccomp and exec of sh, the answer)."""
    place.check("true")
    back_to_back = place.check("true")
    time.sleep(IDLE_S)
    idle = place.check("true")
    out = {"true_back_to_back": back_to_back.wall_ms, "true_after_idle": idle.wall_ms}
    if idle.server_ms is not None:
        out["true_after_idle_server"] = idle.server_ms
        out["true_back_to_back_server"] = back_to_back.server_ms
    return out


def _timed_loop(place, body):
    ran = place.check(f"t0=$(date +%s%N); {body}; t1=$(date +%s%N); echo \"kg-ns $((t1 - t0))\"")
    match = re.search(r"kg-ns (\d+)", ran.stdout)
    if not match:
        raise mp.CallFailed(f"{place.name}: no timing in {ran.stdout[-200:]!r}")
    return int(match.group(1))


def process_start(place, _key, _nonce):
    """fork + exec + exit of /bin/true from sh, per process (µs)."""
    ns = _timed_loop(place, f"i=0; while [ $i -lt {PROCESS_STARTS} ]; do /bin/true; "
                            f"i=$((i + 1)); done")
    return {"process_start_us": ns / PROCESS_STARTS / 1000}


def syscall_cost(place, _key, _nonce):
    """One read or write of one byte, /dev/zero to /dev/null (ns): the seccomp filter runs on
    every system call in the sandbox."""
    ns = _timed_loop(place, f"dd if=/dev/zero of=/dev/null bs=1 count={SYSCALL_BYTES} 2>/dev/null")
    return {"syscall_ns": ns / (2 * SYSCALL_BYTES)}


# In order: a one-line edit before each build, so every build compiles the user's package.
PROBES = [go_build, traced_go_build, native_cache_go_build, run_program, compile_link_alone,
          empty_command, process_start, syscall_cost]


def probes_for(row):
    """All of PROBES, but a row needing curated packages skips the plain-GOCACHE build: its
    warm-up would compile the whole Cloud SDK into that cache first (many minutes)."""
    if row.daemon == "storage":
        return [probe for probe in PROBES if probe is not native_cache_go_build]
    return PROBES


def host_syscall_count(place, key, nonce):
    """System calls of compile + link alone on the host (strace -f -c), to turn the per-call
    seccomp cost into a share of compile + link; None when strace is missing."""
    d = place.program_dir(key)
    captured = place.check(mp.capture_command(d, nonce, f"{d}-alone-prog"))
    script = toolchain_capture.compile_link_command(captured.stderr)
    script_path, summary = f"{d}-alone.sh", f"{d}-strace.txt"
    with open(script_path, "w") as f:  # the host's file system: `place` is the host
        f.write(script)
    ran = place.run(f"strace -f -c -o {summary} sh {script_path}")
    if ran.exit_code != 0:
        return None
    for line in place.read(summary).splitlines():
        fields = line.split()
        if fields and fields[-1] == "total":
            return int(fields[3])
    return None
