"""RESULTS.md's issue-27 parts: auto beside compiled-go (which runtime auto chose, and whether it
was ever the slower one), what the CLI adds over the API call it makes, and the issue's targets
(a warm Yaegi call through the API, auto never slower than compiled-go, a thin CLI)."""


def _get(data, *keys):
    for key in keys:
        if not isinstance(data, dict) or data.get(key) is None:
            return None
        data = data[key]
    return data


def _ratio(value, base):
    return round(value / base, 2) if value is not None and base else None


def _auto_rows(r):
    return {k: row for k, row in r["rows"].items() if row.get("runtime") == "auto"}


def cli_overheads(r):
    """Per row: CLI median − API median (the same kind of call in the same session and
    repetitions: the CLI process against the bench's own HTTP request on the socket)."""
    out = {}
    for key, row in r["rows"].items():
        api, cli = _get(row, "api", "median"), _get(row, "cli", "median")
        if api is not None and cli is not None:
            out[key] = round(cli - api, 1)
    return out


def section(r):
    lines = []
    auto = _auto_rows(r)
    if auto:
        lines += ["", "## auto beside compiled-go (issue 27)", "",
                  "Each repetition runs the row's program with runtime auto, then with "
                  "compiled-go (a one-line edit, a real build; for the resubmission row the same "
                  "program, which compiled-go built in the warm-up). auto must never be the "
                  "slower one (docs/runtimes.md, \"When auto picks yaegi\").", "",
                  "| row | auto API median (p95) | compiled-go API median (p95) | auto / compiled-go "
                  "| runtimes auto chose (repetitions) |", "|---|---|---|---|---|"]
        for row in auto.values():
            chosen = ", ".join(f"{name} {n}" for name, n in sorted(
                (row.get("runtimes_chosen") or {}).items()))
            lines.append(
                f"| {row['title']} | {_get(row, 'api', 'median')} ({_get(row, 'api', 'p95')}) | "
                f"{_get(row, 'compiled_api', 'median')} ({_get(row, 'compiled_api', 'p95')}) | "
                f"{_ratio(_get(row, 'api', 'median'), _get(row, 'compiled_api', 'median'))} | "
                f"{chosen} |")
    overheads = cli_overheads(r)
    if overheads:
        lines += ["", "## What the CLI adds over its API call (issue 27)", "",
                  "`kode-gopher --config <bench config> exec --json --session <id> DIR` (a process "
                  "per call) against the bench's own POST on the daemon socket, same row, same "
                  "session, same repetitions: CLI median − API median, ms.", "",
                  "| row | API median | CLI median | CLI − API |", "|---|---|---|---|"]
        for key, extra in overheads.items():
            row = r["rows"][key]
            lines.append(f"| {row['title']} | {_get(row, 'api', 'median')} | "
                         f"{_get(row, 'cli', 'median')} | {extra} |")
    return lines


def targets(r):
    """(target, measured, met, what bounds it) for issue 27's goals."""
    rows = r["rows"]
    out = []
    hello = _get(rows, "yaegi_hello", "api", "median")
    if hello is not None:
        out.append(("Yaegi hello through the daemon API ≤ 8 ms median", f"{hello} ms",
                    hello <= 8,
                    f"parse+compile {_get(rows, 'yaegi_hello', 'api_phases', 'build_ms', 'median')} ms, "
                    f"run {_get(rows, 'yaegi_hello', 'api_phases', 'run_ms', 'median')} ms, "
                    f"{_get(rows, 'yaegi_hello', 'sandbox_requests', 'median')} sandbox requests, "
                    f"the daemon's own work {_get(rows, 'yaegi_hello', 'daemon_own_work', 'median')} ms"))
    shaping = _get(rows, "yaegi_shaping", "api", "median")
    if shaping is not None:
        out.append(("Yaegi data-shaping snippet through the daemon API ≤ 25 ms median",
                    f"{shaping} ms", shaping <= 25,
                    f"the interpretation itself: parse+compile "
                    f"{_get(rows, 'yaegi_shaping', 'api_phases', 'build_ms', 'median')} ms, run "
                    f"{_get(rows, 'yaegi_shaping', 'api_phases', 'run_ms', 'median')} ms"))
    storage = _get(rows, "yaegi_storage", "api", "median")
    if storage is not None:
        out.append(("Yaegi storage snippet against fake-gcs-server through the daemon API "
                    "≤ 40 ms median", f"{storage} ms", storage <= 40,
                    f"parse+compile {_get(rows, 'yaegi_storage', 'api_phases', 'build_ms', 'median')} "
                    f"ms, run {_get(rows, 'yaegi_storage', 'api_phases', 'run_ms', 'median')} ms; "
                    f"{_get(rows, 'yaegi_storage', 'api_runner_ready', 'median')} ms once the "
                    "cloud runner prestarted after the session's previous call has started (the "
                    "row's calls come milliseconds after a compiled-go call, so they wait for the "
                    "rest of that start, ~30 ms of CPU)"))
    interpreted = {k: t["yaegi_calls_per_s"] for k, t in r.get("throughput", {}).items()
                   if "yaegi_calls_per_s" in t}
    if "8" in interpreted:
        out.append(("≥ 50 interpreted calls/s across 8 sessions (Yaegi hello, daemon API)",
                    f"{interpreted['8']} calls/s; by sessions: "
                    + ", ".join(f"{k}: {v}" for k, v in interpreted.items()),
                    interpreted["8"] >= 50,
                    "two cores: each call forks a prestarted runner, parses and runs in its "
                    "sandbox, and the daemon starts the next runner"))
    auto = _auto_rows(r)
    if auto:
        ratios = {k: _ratio(_get(row, "api", "median"), _get(row, "compiled_api", "median"))
                  for k, row in auto.items()}
        worst_key = max(ratios, key=lambda k: ratios[k] or 0)
        worst = ratios[worst_key]
        out.append(("no auto row slower than compiled-go (auto / compiled-go ≤ 1.0)",
                    f"worst {worst} × ({rows[worst_key]['title']}); "
                    + ", ".join(f"{k} {v}" for k, v in ratios.items()),
                    worst is not None and worst <= 1.0,
                    f"{rows[worst_key]['title']}: auto ran "
                    f"{rows[worst_key].get('runtimes_chosen')} with "
                    f"{_get(rows[worst_key], 'sandbox_requests', 'median')} sandbox requests a "
                    f"call (median); a call the runner must check before the compiler gets it "
                    f"pays one round trip more, unless the code it declined was already there on "
                    f"an earlier call of the session (docs/runtimes.md)"))
    out += compiled_floor_targets(rows)
    overheads = cli_overheads(r)
    if overheads:
        key = "cache_hit" if "cache_hit" in overheads else next(iter(overheads))
        extra = overheads[key]
        out.append(("kode-gopher exec adds ≤ 5 ms over its API call",
                    f"{extra} ms ({rows[key]['title']}); all rows: "
                    + ", ".join(f"{k} {v}" for k, v in overheads.items()),
                    extra <= 5, "the CLI process: start, config, its HTTP exchange, rendering"))
    return out


def compiled_floor_targets(rows):
    """Goals 4 and 5: compiled calls at the toolchain's floor, and the storage program."""
    out = []
    for key, name in (("hello", "warm compiled hello"), ("edit", "one-line edit")):
        api = _get(rows, key, "api", "median")
        alone = _get(rows, key, "compile_link_alone", "median")
        if api is None or alone is None:
            continue
        fast = _get(rows, key, "compile_link_alone_parts", "fast_flags_ms", "median")
        phases = _get(rows, key, "api_phases")
        out.append((f"{name}: the daemon, the sandbox and the fast path add ≤ 10 ms to compiler + "
                    "linker alone in the sandbox (API − alone)",
                    f"{round(api - alone, 1)} ms ({api} vs {alone} ms; with the fast path's flags "
                    f"the tools take {fast} ms, API − that "
                    f"{round(api - fast, 1) if fast is not None else None} ms)",
                    api - alone <= 10,
                    f"build command {_get(phases, 'build_ms', 'median')} ms, run command "
                    f"{_get(phases, 'run_ms', 'median')} ms, "
                    f"{_get(rows, key, 'sandbox_requests', 'median')} sandbox requests, the "
                    f"daemon's own work {_get(rows, key, 'daemon_own_work', 'median')} ms: "
                    "kode-gopher-fastbuild's start, two tool starts, the run command's start "
                    "(bench/README.md, \"Issue 27: the compiled floor\")"))
    storage = _get(rows, "storage", "api", "median")
    baseline = _get(rows, "storage", "sandbox_build_exec", "median")
    if storage is not None and baseline:
        steps = _get(rows, "storage", "toolchain_steps")
        out.append(("storage snippet compiled ≤ 0.6 × go build + exec in the sandbox",
                    f"{_ratio(storage, baseline)} × ({storage} ms vs {baseline} ms)",
                    storage <= 0.6 * baseline,
                    "the compiler and the linker themselves (go build's own work is already gone): "
                    "in the sandbox, compiler + linker alone "
                    f"{_get(rows, 'storage', 'compile_link_alone', 'median')} ms with go build's "
                    "flags (CPU "
                    f"{_get(rows, 'storage', 'compile_link_alone_parts', 'cpu_ms', 'median')} ms), "
                    f"{_get(rows, 'storage', 'compile_link_alone_parts', 'fast_flags_ms', 'median')}"
                    " ms with the fast path's (CPU "
                    f"{_get(rows, 'storage', 'compile_link_alone_parts', 'fast_flags_cpu_ms', 'median')}"
                    " ms); on the host with go build's flags, compile of the user's package "
                    f"{_get(steps, 'compile_ms', 'median')} ms, link "
                    f"{_get(steps, 'link_ms', 'median')} ms of go build's "
                    f"{_get(steps, 'go_build_ms', 'median')} ms; the profile is in bench/README.md, "
                    "\"Issue 27: the compiled floor\""))
    return out


def targets_section(r):
    t = targets(r)
    if not t:
        return []
    lines = ["", "## Targets (issue 27, warm interpreter, auto, thin CLI, compiled floor)", "",
             "| target | measured | met | bounded by (measured) |", "|---|---|---|---|"]
    for target, measured, met, bound in t:
        lines.append(f"| {target} | {measured} | {'met' if met else '**not met**'} | "
                     f"{'' if met else bound} |")
    return lines
