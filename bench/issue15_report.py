"""RESULTS.md's issue-15 parts: compiled calls against the compiler and linker alone (the
compile of the user's package and the link, run directly with go build's own flags and importcfg
in the same sandbox and repetitions), and the issue's targets, met or not."""


def _get(data, *keys):
    for key in keys:
        if not isinstance(data, dict) or data.get(key) is None:
            return None
        data = data[key]
    return data


def _ratio(value, base):
    return round(value / base, 2) if value is not None and base else None


def _minus(value, base):
    return round(value - base, 1) if value is not None and base is not None else None


def _fallbacks(row):
    count = _get(row, "fallback_warnings", "count") or 0
    if not count:
        return "none"
    return f"{count} ({'; '.join(_get(row, 'fallback_warnings', 'distinct') or [])})"


def alone_section(r):
    """The table of rows measured with `alone=True`, or no lines."""
    rows = {k: row for k, row in r["rows"].items() if row.get("compile_link_alone")}
    if not rows:
        return []
    lines = ["", "## Compiler + linker alone in the sandbox (issue 15)", "",
             "In each repetition, after the baseline built the row's program in the session's "
             "sandbox, a one-line edit and `go build -x -work` (not timed) give the compile of "
             "the user's package and the link with go build's flags and importcfg files; both "
             "then run directly in one `/execute` of the same sandbox, each timed inside it (wall, "
             "and user + system CPU time). The API call also runs the program; the baseline is "
             "go build + exec. Then the same two run again with the fast path's flags "
             "(sandbox/fastbuild/tools.go: the user's package without DWARF, GOGC=off with "
             "GOMEMLIMIT a quarter of the build's memory limit): API − those is what the daemon, "
             "the sandbox and kode-gopher-fastbuild's own work add.", "",
             "| row | API median | go build + exec (baseline) | compile alone | link alone | "
             "compiler + linker alone | their CPU time | with the fast path's flags (CPU) | "
             "API / alone | API − alone | API − with the fast path's flags | API / baseline | "
             "go build fallbacks |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows.values():
        lines.append(
            f"| {row['title']} | {_get(row, 'api', 'median')} | "
            f"{_get(row, 'sandbox_build_exec', 'median')} | "
            f"{_get(row, 'compile_link_alone_parts', 'compile_ms', 'median')} | "
            f"{_get(row, 'compile_link_alone_parts', 'link_ms', 'median')} | "
            f"{_get(row, 'compile_link_alone', 'median')} (p95 "
            f"{_get(row, 'compile_link_alone', 'p95')}) | "
            f"{_get(row, 'compile_link_alone_parts', 'cpu_ms', 'median')} | "
            f"{_get(row, 'compile_link_alone_parts', 'fast_flags_ms', 'median')} "
            f"({_get(row, 'compile_link_alone_parts', 'fast_flags_cpu_ms', 'median')}) | "
            f"{row.get('api_over_compile_link_alone')} | "
            f"{_minus(_get(row, 'api', 'median'), _get(row, 'compile_link_alone', 'median'))} | "
            f"{_minus(_get(row, 'api', 'median'), _get(row, 'compile_link_alone_parts', 'fast_flags_ms', 'median'))} | "
            f"{_get(row, 'api', 'ratio_to_sandbox_build_exec')} | {_fallbacks(row)} |")
    return lines


def targets(r):
    """(target, measured, met, what bounds it) for issue 15's targets whose rows ran."""
    rows = r["rows"]
    out = []
    for key, name in (("hello", "warm compiled hello"), ("edit", "one-line edit")):
        row = rows.get(key)
        if not row:
            continue
        api = _get(row, "api", "median")
        base = _get(row, "sandbox_build_exec", "median")
        alone = _get(row, "compile_link_alone", "median")
        bound = (f"the call's phases: build {_get(row, 'api_phases', 'build_ms', 'median')} ms, "
                 f"run {_get(row, 'api_phases', 'run_ms', 'median')} ms, setup "
                 f"{_get(row, 'api_phases', 'setup_ms', 'median')} ms (medians); compile alone "
                 f"{_get(row, 'compile_link_alone_parts', 'compile_ms', 'median')} ms, link alone "
                 f"{_get(row, 'compile_link_alone_parts', 'link_ms', 'median')} ms; calls built "
                 f"with go build after a fast-path fallback: {_fallbacks(row)}")
        by_base = _ratio(api, base)
        out.append((f"{name} API ≤ 0.7 × go build + exec in the sandbox",
                    f"{by_base} × ({api} ms vs {base} ms)",
                    by_base is not None and by_base <= 0.7, bound))
        by_alone = _ratio(api, alone)
        out.append((f"{name} API ≤ 1.3 × compiler + linker alone in the sandbox",
                    f"{by_alone} × ({api} ms vs {alone} ms)",
                    by_alone is not None and by_alone <= 1.3, bound))
    storage = rows.get("storage")
    if storage:
        api = _get(storage, "api", "median")
        base = _get(storage, "sandbox_build_exec", "median")
        by_base = _ratio(api, base)
        out.append(("storage snippet API ≤ 0.85 × go build + exec in the sandbox",
                    f"{by_base} × ({api} ms vs {base} ms)",
                    by_base is not None and by_base <= 0.85,
                    f"build {_get(storage, 'api_phases', 'build_ms', 'median')} ms and run "
                    f"{_get(storage, 'api_phases', 'run_ms', 'median')} ms (medians); go build's "
                    f"own steps on the host: compile "
                    f"{_get(storage, 'toolchain_steps', 'compile_ms', 'median')} ms, link "
                    f"{_get(storage, 'toolchain_steps', 'link_ms', 'median')} ms of "
                    f"{_get(storage, 'toolchain_steps', 'go_build_ms', 'median')} ms; calls "
                    f"built with go build after a fast-path fallback: {_fallbacks(storage)}"))
    return out


def targets_section(r):
    found = targets(r)
    if not found:
        return []
    lines = ["", "## Targets (issue 15, compiled calls at the speed of the compiler and linker)",
             ""]
    reps = (r.get("settings") or {}).get("reps", 0)
    if reps < 5:
        lines += [f"Only {reps} repetitions: a smoke test of the bench, not a verdict on the "
                  "targets (one slow baseline moves a ratio by a third on a shared machine).", ""]
    lines += ["| target | measured | met | bounded by (measured) |", "|---|---|---|---|"]
    for target, measured, met, bound in found:
        lines.append(f"| {target} | {measured} | {'met' if met else '**not met**'} | "
                     f"{'' if met else bound} |")
    return lines
