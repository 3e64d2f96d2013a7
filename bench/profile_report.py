"""PROFILE.md: issue 15's profile (profile.py) as one table per row, sandbox beside host."""

# (metric, label, unit); "api" metrics exist in the sandbox only (the daemon's call).
LINES = [
    ("api", "API call through the daemon (compiled-go, warm session), wall", "ms"),
    ("api_setup", "· setup (starting a sandbox: none in a warm session)", "ms"),
    ("api_build", "· build command (go build, or the fast path)", "ms"),
    ("api_run", "· running the program (and reading result.json)", "ms"),
    ("api_rest", "· the rest: replacing /app (one upload), the daemon, HTTP + JSON", "ms"),
    ("go_build_process", "go build after a one-line edit: the go process, fork to exit", "ms"),
    ("go_build_cpu", "· its CPU time (user + system, with compile, link, cacheprog)", "ms"),
    ("go_build", "· the command around it (with the timer's Python start; sandbox: the "
                 "/execute)", "ms"),
    ("traced_go_build", "go build -debug-trace after a one-line edit, as a command (sandbox: "
                        "the /execute)", "ms"),
    ("outside_trace", "· outside the go command's trace: its process start and exit (sandbox: "
                      "and the /execute around it)", "ms"),
    ("trace_load", "· loading packages (go.mod, imports, parsing: load.PackagesAndErrors)", "ms"),
    ("trace_plan", "· building the action graph", "ms"),
    ("trace_dep_checks", "· dependencies' action IDs hashed and looked up through GOCACHEPROG "
                         "(critical path until the user package's compile)", "ms"),
    ("trace_compile_action", "· the user package's build action (compile process, cache put)",
     "ms"),
    ("trace_link_action", "· the link action (link process)", "ms"),
    ("trace_install", "· installing the binary (-o)", "ms"),
    ("trace_cache_checks", "(all 'check cache' actions summed over the go command's workers)",
     "ms"),
    ("actions", "(actions the go command ran)", ""),
    ("native_go_build", "go build -debug-trace with a plain GOCACHE instead of GOCACHEPROG "
                        "(host only)", "ms"),
    ("native_trace_load", "· loading packages", "ms"),
    ("native_trace_dep_checks", "· dependencies' action-cache checks (critical path)", "ms"),
    ("native_trace_cache_checks", "(all 'check cache' actions summed)", "ms"),
    ("compile_alone", "compile of the user's package alone (go build's flags and importcfg)",
     "ms"),
    ("link_alone", "link alone", "ms"),
    ("compile_link_alone", "compiler + linker alone", "ms"),
    ("compile_alone_cpu", "· compile CPU time (user + system)", "ms"),
    ("link_alone_cpu", "· link CPU time", "ms"),
    ("compile_link_alone_cpu", "· compiler + linker CPU time", "ms"),
    ("compile_link_alone_command", "· the command that ran them (with the timer's Python start; "
                                   "sandbox: the /execute round trip)",
     "ms"),
    ("run_program", "running the built binary (a command of its own)", "ms"),
    ("true_back_to_back", "an empty command (`true`), right after another", "ms"),
    ("true_after_idle", "an empty command after 0.3 s idle", "ms"),
    ("true_back_to_back_server", "· the sandbox server's duration_ms of it, back to back", "ms"),
    ("true_after_idle_server", "· the sandbox server's duration_ms of it, after idle", "ms"),
    ("process_start_us", "a process start (fork + exec + exit of /bin/true from sh)", "µs"),
    ("syscall_ns", "a system call (1-byte read or write, dd)", "ns"),
]


def _median(results, place, metric):
    summary = results.get(place, {}).get(metric)
    return None if not summary else summary["median"]


def _fmt(value, unit):
    if value is None:
        return "—"
    return f"{value:.0f}" if unit == "ns" or abs(value) >= 100 else f"{value:.1f}"


def row_table(key, title, results):
    lines = [f"### {title} [`{key}`]", "",
             "| step | sandbox | host | sandbox − host |", "|---|---|---|---|"]
    for metric, label, unit in LINES:
        place = "api" if metric.startswith("api") else "sandbox"
        inside = _median(results, place, metric)
        outside = None if place == "api" else _median(results, "host", metric)
        if inside is None and outside is None:
            continue
        diff = inside - outside if inside is not None and outside is not None else None
        suffix = f" ({unit})" if unit and unit != "ms" else ""
        lines.append(f"| {label}{suffix} | {_fmt(inside, unit)} | {_fmt(outside, unit)} | "
                     f"{_fmt(diff, unit)} |")
    for whole, part, label in (
            ("go_build_process", "compile_link_alone", "what the go process adds to compiler + "
                                                      "linker alone (wall)"),
            ("go_build_cpu", "compile_link_alone_cpu", "what the go process adds (CPU time)")):
        adds = [None if None in (_median(results, p, whole), _median(results, p, part))
                else _median(results, p, whole) - _median(results, p, part)
                for p in ("sandbox", "host")]
        if None not in adds:
            lines.append(f"| {label} | {adds[0]:.1f} | {adds[1]:.1f} | "
                         f"{adds[0] - adds[1]:.1f} |")
    calls = results.get("host_syscalls")
    per_call = [_median(results, p, "syscall_ns") for p in ("sandbox", "host")]
    if calls and None not in per_call:
        share = calls * (per_call[0] - per_call[1]) / 1e6
        lines.append(f"| system calls of compiler + linker alone (host, strace -f -c): {calls}; "
                     f"× the sandbox's extra cost per call | {share:.1f} ms | | |")
    fallbacks = _median(results, "api", "fallback")
    if fallbacks:
        lines.append(f"| API calls built with go build after a fast-path fallback (median of 0/1) "
                     f"| {fallbacks} | | |")
    return lines


def markdown(r):
    m, s = r["machine"], r["settings"]
    lines = ["# Issue 15 profile of a warm compiled call", "",
             "Written by `bench/run.sh --profile` (bench/profile.py; see bench/README.md). Medians "
             f"over {s['reps']} repetitions after {s['warmup']} warm-up, in ms unless marked; in "
             "each repetition every probe runs in the session's sandbox and right after it on "
             "the host, on the same program with the same toolchain, flags, lockfile and base "
             "build cache (through the same GOCACHEPROG).", "",
             f"Machine: {m['nproc']} CPUs ({m['cpu']}), kernel {m['kernel']}, {m['go']}, "
             f"{m['bwrap']}. Date: {m['date']}. Load average before / after: "
             f"{s['loadavg_before']} / {s['loadavg_after']}.", "",
             "Sandbox isolation: " + ("; ".join(r.get("isolation") or []) or "not reported") + ".",
             ""]
    for key, results in r["rows"].items():
        lines += row_table(key, r["titles"].get(key, key), results) + [""]
    return "\n".join(lines)
