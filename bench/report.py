"""Writes bench/RESULTS.md (tables, machine, targets of issue 6 with met / not met and what bounds
them) and bench/results.json from the results kgbench.py collected."""

import datetime
import json
import os
import platform
import subprocess

import issue15_report
import issue25_report
import issue27_report
import image_sizes
from rows import RUNNER_READY_PAUSE_MS


def _run(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return "unknown"


def machine_info():
    mem_kib = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    cpu = ""
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem_kib / 2**20, 1),
            "kernel": platform.release(), "go": _run(["go", "version"]),
            "bwrap": _run(["bwrap", "--version"]), "python": platform.python_version(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def load_average():
    """The 1, 5 and 15 minute load averages: on a shared machine they say how far to trust a run."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _get(data, *keys):
    for key in keys:
        if not isinstance(data, dict) or key not in data or data[key] is None:
            return None
        data = data[key]
    return data


def targets(r):
    """(target, measured, met, what bounds it) for every target of issue 6."""
    rows = r["rows"]
    out = []
    hello_ratio = _get(rows, "hello", "api", "ratio_to_sandbox_build_exec")
    hello_base = _get(rows, "hello", "sandbox_build_exec", "median")
    out.append(("compiled warm snippet ≤ 1.15 × go build + exec in the sandbox",
                f"{hello_ratio} × ({_get(rows, 'hello', 'api', 'median')} ms vs {hello_base} ms)",
                hello_ratio is not None and hello_ratio <= 1.15,
                "the sandbox's work (three requests: replace /app; build; run with result.json) "
                f"takes {_get(rows, 'hello', 'api', 'median')} ms of which build "
                f"{_get(rows, 'hello', 'api_phases', 'build_ms', 'median')} ms and run "
                f"{_get(rows, 'hello', 'api_phases', 'run_ms', 'median')} ms; the daemon's own "
                f"work {_get(rows, 'hello', 'daemon_own_work', 'median')} ms; compare the edit "
                f"row ({_get(rows, 'edit', 'api', 'ratio_to_sandbox_build_exec')} ×) for "
                "machine noise"))
    hit = _get(rows, "cache_hit", "api", "median")
    out.append(("binary-cache hit ≤ 30 ms median", f"{hit} ms", hit is not None and hit <= 30,
                f"setup {_get(rows, 'cache_hit', 'api_phases', 'setup_ms', 'median')} ms + run "
                f"{_get(rows, 'cache_hit', 'api_phases', 'run_ms', 'median')} ms (medians) of "
                "sandbox round trips"))
    storage = _get(rows, "storage", "api", "median")
    storage_base = _get(rows, "storage", "sandbox_build_exec", "median")
    out.append(("storage snippet compiled ≤ 1.5 s", f"{storage} ms",
                storage is not None and storage <= 1500,
                f"the toolchain: plain go build + exec of the same program in the same sandbox "
                f"takes {storage_base} ms (median), go run on the host "
                f"{_get(rows, 'storage', 'go_run', 'median')} ms; go build's own steps on the "
                f"host (-toolexec): compiling the user's package "
                f"{_get(rows, 'storage', 'toolchain_steps', 'compile_ms', 'median')} ms, linking "
                f"{_get(rows, 'storage', 'toolchain_steps', 'link_ms', 'median')} ms of "
                f"{_get(rows, 'storage', 'toolchain_steps', 'go_build_ms', 'median')} ms"))
    first = _get(r, "first_call", "api", "median")
    warm_p95 = _get(rows, "hello", "api", "p95")
    out.append(("first call after start ≤ warm p95",
                f"{first} ms vs warm p95 {warm_p95} ms (once the warm pool is ready, "
                f"{_get(r, 'first_call', 'health_to_warm_pool', 'median')} ms after /v1/health; "
                f"right after /v1/health: {_get(r, 'first_call', 'api_immediate', 'median')} ms)",
                first is not None and warm_p95 is not None and first <= warm_p95,
                "the first call's sandbox start and its first build in a fresh sandbox: setup "
                f"{_get(r, 'first_call', 'api_phases', 'setup_ms', 'median')} ms, build "
                f"{_get(r, 'first_call', 'api_phases', 'build_ms', 'median')} ms, run "
                f"{_get(r, 'first_call', 'api_phases', 'run_ms', 'median')} ms (medians); plain "
                "go build + exec as the first build in a fresh sandbox takes "
                f"{_get(r, 'first_call', 'sandbox_build_exec_fresh_sandbox', 'median')} ms"))
    rates = {k: v["api_calls_per_s"] for k, v in r["throughput"].items()}
    best = max(rates.values()) if rates else None
    base_rates = {k: v["sandbox_build_exec_per_s"] for k, v in r["throughput"].items()}
    out.append(("≥ 4 compiled calls/s across sessions",
                f"{best} calls/s (best of {', '.join(f'{k}: {v}' for k, v in rates.items())})",
                best is not None and best >= 4,
                "the toolchain on this machine: plain go build + exec in the same sandboxes "
                f"reaches {max(base_rates.values()) if base_rates else None} calls/s"))
    idle = _get(r, "memory", "idle_after_start_kib")
    out.append(("daemon idle RSS ≤ 20 MB", f"{idle and round(idle / 1024, 1)} MiB after start, "
                f"{_get(r, 'memory', 'idle_after_load_kib') and round(r['memory']['idle_after_load_kib'] / 1024, 1)} MiB after load",
                idle is not None and idle <= 20 * 1024, "the daemon's resident code and heap"))
    over = _get(rows, "cache_hit", "overhead_outside_sandbox", "median")
    own = _get(rows, "cache_hit", "daemon_own_work", "median")
    out.append(("per-call overhead outside the sandbox ≤ 2 ms",
                f"{over} ms (client wall − the sandbox's start and requests, cache-hit row, from "
                f"timings_us); of it the daemon's own work: {own} ms; HTTP + JSON on the daemon "
                f"socket with the Python client, and the SQLite outcome: "
                f"{_get(rows, 'cache_hit', 'outside_daemon_timing', 'median')} ms",
                over is not None and over <= 2,
                "HTTP + JSON on the daemon socket, session lookup, recording the call in SQLite"))
    return out


def yaegi_targets(r):
    """(target, measured, met, what bounds it) for the targets of issue 11 (the yaegi runtime)."""
    rows = r["rows"]
    out = []
    hello = _get(rows, "yaegi_hello", "api", "median")
    if hello is not None:
        out.append(("Yaegi call ≤ 40 ms median end to end (hello)", f"{hello} ms",
                    hello <= 40,
                    f"in the sandbox: the runner's parse and compile "
                    f"{_get(rows, 'yaegi_hello', 'api_phases', 'build_ms', 'median')} ms, run "
                    f"{_get(rows, 'yaegi_hello', 'api_phases', 'run_ms', 'median')} ms; the "
                    f"upstream yaegi CLI on the host takes "
                    f"{_get(rows, 'yaegi_hello', 'yaegi_cli', 'median')} ms"))
    faster = _get(rows, "yaegi_shaping", "compiled_api_over_api")
    if faster is not None:
        out.append(("Yaegi ≥ 5 × faster than compiled-go on a data-shaping snippet",
                    f"{faster} × ({_get(rows, 'yaegi_shaping', 'api', 'median')} ms vs "
                    f"{_get(rows, 'yaegi_shaping', 'compiled_api', 'median')} ms compiled)",
                    faster >= 5, "the interpretation itself: run phase "
                    f"{_get(rows, 'yaegi_shaping', 'api_phases', 'run_ms', 'median')} ms"))
    storage = _get(rows, "yaegi_storage", "api", "median")
    if storage is not None:
        out.append(("storage snippet through Yaegi ≤ 0.3 s", f"{storage} ms", storage <= 300,
                    f"the runner's parse and compile "
                    f"{_get(rows, 'yaegi_storage', 'api_phases', 'build_ms', 'median')} ms and run "
                    f"{_get(rows, 'yaegi_storage', 'api_phases', 'run_ms', 'median')} ms"))
    return out


def _cell(summary, key="median"):
    return "—" if not summary else f"{summary[key]:.0f}"


def _alone_cell(row):
    alone = row.get("compile_link_alone")
    return "—" if not alone else f"{_cell(alone)} (p95 {_cell(alone, 'p95')})"


def markdown(r):
    m = r["machine"]
    lines = ["# kode-gopher benchmark results", "",
             "Written by `bench/run.sh` (see bench/README.md). Times are wall-clock ms measured by "
             "the client, median and p95 over the repetitions after warm-up; ratios are medians "
             "over the `go build` + exec baseline in the same kind of sandbox with the same cache.",
             "",
             f"Machine: {m['nproc']} CPUs ({m['cpu']}), {m['memory_gib']} GiB, kernel {m['kernel']}, "
             f"{m['go']}, {m['bwrap']}, Python {m['python']}. Date: {m['date']}. "
             f"Repetitions: {r['settings']['reps']} after {r['settings']['warmup']} warm-up. "
             f"Load average before / after: {r['settings'].get('loadavg_before', '?')} / "
             f"{r['settings'].get('loadavg_after', '?')}.", "",
             "Sandbox isolation in force (the daemon's /v1/health): " +
             ("; ".join(r.get("isolation") or []) or "not reported") + ".", "",
             "## Paths", "",
             "| row | API median | API p95 | CLI median | CLI p95 | go build + exec in sandbox "
             "(baseline) | go run on host | compiler + linker alone in the sandbox | "
             "API / baseline | CLI / baseline | go run / baseline |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, row in r["rows"].items():
        lines.append(
            f"| {row['title']} | {_cell(row['api'])} | {_cell(row['api'], 'p95')} | "
            f"{_cell(row['cli'])} | {_cell(row['cli'], 'p95')} | "
            f"{_cell(row['sandbox_build_exec'])} (p95 {_cell(row['sandbox_build_exec'], 'p95')}) | "
            f"{_cell(row['go_run'])} (p95 {_cell(row['go_run'], 'p95')}) | "
            f"{_alone_cell(row)} | "
            f"{row['api']['ratio_to_sandbox_build_exec']} | {row['cli']['ratio_to_sandbox_build_exec']} | "
            f"{row['go_run']['ratio_to_sandbox_build_exec']} |")
    yaegi_rows = {k: row for k, row in r["rows"].items() if row.get("runtime") in ("yaegi", "auto")}
    if yaegi_rows:
        lines += ["", "## Yaegi beside compiled-go and the upstream yaegi CLI (same run)", "",
                  "Each repetition runs the same program through the daemon with runtime yaegi, "
                  "then with compiled-go (a new one-line edit, so a real build), and the upstream "
                  "`yaegi run` (cmd/yaegi at the runner's pinned version, standard library "
                  "symbols only: it cannot run the storage program) on the host over the same "
                  "normalized files. The yaegi API column's call comes milliseconds after the "
                  "session's previous call (compiled-go), so it may wait for the rest of the "
                  f"start of the runner prestarted after that call; the next column is the same "
                  f"call after a {RUNNER_READY_PAUSE_MS} ms pause, with that runner waiting.", "",
                  "Rows titled auto run with runtime auto instead of yaegi (the runtimes it chose "
                  "are in the issue-27 table below).", "",
                  "| row | yaegi (or auto) API median (p95) | the same, runner ready | "
                  "compiled-go API median (p95) | compiled / yaegi "
                  "| upstream yaegi CLI median (p95) | go build + exec in sandbox | yaegi "
                  "parse+compile / run (API phases) |", "|---|---|---|---|---|---|---|---|"]
        for key, row in yaegi_rows.items():
            cli = row.get("yaegi_cli")
            lines.append(
                f"| {row['title']} | {_cell(row['api'])} ({_cell(row['api'], 'p95')}) | "
                f"{_cell(row.get('api_runner_ready')) if row.get('api_runner_ready') else '—'} | "
                f"{_cell(row.get('compiled_api'))} ({_cell(row.get('compiled_api'), 'p95')}) | "
                f"{row.get('compiled_api_over_api')} | "
                f"{_cell(cli) + ' (' + _cell(cli, 'p95') + ')' if cli else 'n/a (no symbols for the package)'} | "
                f"{_cell(row['sandbox_build_exec'])} | "
                f"{_get(row, 'api_phases', 'build_ms', 'median')} / "
                f"{_get(row, 'api_phases', 'run_ms', 'median')} |")
    lines += issue27_report.section(r)
    lines += issue25_report.section(r)
    lines += issue15_report.alone_section(r)
    fc = r["first_call"]
    if fc:
        hello = r["rows"].get("hello", {})
        base = _get(hello, "sandbox_build_exec", "median")
        lines += ["", "## First call after a daemon start", "",
                  "| measure | median | p95 | / warm hello baseline |", "|---|---|---|---|",
                  f"| daemon start → /v1/health answers | {_cell(fc['daemon_start_to_health'])} | "
                  f"{_cell(fc['daemon_start_to_health'], 'p95')} | |",
                  f"| /v1/health → warm pool ready (a sandbox started, one command run) | "
                  f"{_cell(fc.get('health_to_warm_pool'))} | "
                  f"{_cell(fc.get('health_to_warm_pool'), 'p95')} | |",
                  f"| API: open session | {_cell(fc['session_open'])} | "
                  f"{_cell(fc['session_open'], 'p95')} | |",
                  f"| API: open session + compiled hello, warm pool ready | {_cell(fc['api'])} | "
                  f"{_cell(fc['api'], 'p95')} | {_ratio(fc['api'], base)} |",
                  f"| API: open session + compiled hello, right after /v1/health | "
                  f"{_cell(fc.get('api_immediate'))} | {_cell(fc.get('api_immediate'), 'p95')} | "
                  f"{_ratio(fc.get('api_immediate'), base)} |",
                  f"| baseline: go build + exec, the first build in a fresh sandbox | "
                  f"{_cell(fc.get('sandbox_build_exec_fresh_sandbox'))} | "
                  f"{_cell(fc.get('sandbox_build_exec_fresh_sandbox'), 'p95')} | "
                  f"{_ratio(fc.get('sandbox_build_exec_fresh_sandbox'), base)} |",
                  f"| CLI `kode-gopher exec` with no daemon running (auto-start) | "
                  f"{_cell(fc['cli_autostart'])} | {_cell(fc['cli_autostart'], 'p95')} | "
                  f"{_ratio(fc['cli_autostart'], base)} |"]
    if r["throughput"]:
        lines += ["", "## Throughput (compiled hello-world, distinct programs, daemon API)", "",
                  "Interpreted: Yaegi hello-world calls (distinct programs, at least 10 per "
                  "session) across the same number of sessions.", "",
                  "| sessions | calls | API calls/s | go build + exec in sandboxes calls/s | ratio | "
                  "interpreted (Yaegi) calls/s |",
                  "|---|---|---|---|---|---|"]
        for k, t in r["throughput"].items():
            lines.append(f"| {k} | {t['calls']} | {t['api_calls_per_s']} | "
                         f"{t['sandbox_build_exec_per_s']} | {t['ratio_to_baseline']} | "
                         f"{t.get('yaegi_calls_per_s', '—')} |")
    lines += ["", "## Where a call's time goes (daemon API, medians, ms)", "",
              "Client wall time split with the result's `timings_us`: the sandbox's work (its "
              "start and its runtime API requests: building and running), the daemon's own work "
              "inside the call, and the rest (HTTP and JSON on the daemon socket at both ends, and "
              "writing the call's outcome to SQLite after its total was taken). "
              "`go build` steps: the same program built on the host with `-toolexec` timing "
              "each tool.", "",
              "| row | API wall | sandbox requests | in the sandbox | daemon's own work | "
              "HTTP + JSON (client and daemon) and the SQLite outcome | go build on host: compile user package | link "
              "| whole go build |", "|---|---|---|---|---|---|---|---|---|"]
    for key, row in r["rows"].items():
        steps = row.get("toolchain_steps") or {}
        wall = _get(row, "api", "median")
        over = _get(row, "overhead_outside_sandbox", "median")
        inside = round(wall - over, 1) if wall is not None and over is not None else None
        lines.append(
            f"| {row['title']} | {wall} | {_get(row, 'sandbox_requests', 'median')} | "
            f"{inside} | {_get(row, 'daemon_own_work', 'median')} | "
            f"{_get(row, 'outside_daemon_timing', 'median')} | "
            f"{_get(steps, 'compile_ms', 'median') or '—'} | {_get(steps, 'link_ms', 'median') or '—'} | "
            f"{_get(steps, 'go_build_ms', 'median') or '—'} |")
    mem = r["memory"]
    lines += ["", "## Daemon memory (VmRSS of kode-gopherd alone, sandboxes not included)", "",
              "| when | MiB |", "|---|---|"]
    for key, label in (("idle_after_start_kib", "idle, after start"),
                       ("under_load_peak_kib", "peak under load (throughput runs)"),
                       ("idle_after_load_kib", "idle, after load")):
        if mem.get(key):
            lines.append(f"| {label} | {mem[key] / 1024:.1f} |")
    lines += ["", "## Targets (issue 6)", "", "| target | measured | met | bounded by (measured) |",
              "|---|---|---|---|"]
    for target, measured, met, bound in _measured(targets(r)):
        lines.append(f"| {target} | {measured} | {'met' if met else '**not met**'} | "
                     f"{'' if met else bound} |")
    if yaegi_targets(r):
        lines += ["", "## Targets (issue 11, the yaegi runtime)", "",
                  "| target | measured | met | bounded by (measured) |", "|---|---|---|---|"]
        for target, measured, met, bound in yaegi_targets(r):
            lines.append(f"| {target} | {measured} | {'met' if met else '**not met**'} | "
                         f"{'' if met else bound} |")
    lines += issue15_report.targets_section(r)
    lines += issue27_report.targets_section(r)
    lines += issue25_report.targets_section(r)
    if r["errors"]:
        lines += ["", "## Failed sections", ""] + [f"- {e}" for e in r["errors"]]
    return "\n".join(lines) + "\n"


def _measured(targets_list):
    """The targets whose rows this run measured (a run with --only leaves the others out)."""
    return [t for t in targets_list if "None" not in str(t[1])]


def _ratio(summary, base):
    if not summary or not base:
        return "—"
    return f"{summary['median'] / base:.2f}"


def write(results, out_dir):
    results["targets"] = [{"target": t, "measured": m, "met": met, "bound": b}
                          for t, m, met, b in _measured(targets(results) + yaegi_targets(results))
                          + issue15_report.targets(results) + issue27_report.targets(results)
                          + issue25_report.targets(results)]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    with open(os.path.join(out_dir, "RESULTS.md"), "w") as f:
        # The images' sizes are measured apart (bench/image_sizes.py); their section stays.
        f.write(markdown(results).rstrip("\n") + "\n\n" + image_sizes.section())
