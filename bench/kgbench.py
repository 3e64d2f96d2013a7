#!/usr/bin/env python3
"""kode-gopher's benchmark: measures every row of rows.py through the daemon API and the CLI,
next to the baselines (go build + exec in the same sandbox with the same cache; go run on the
host), plus the first call after a daemon start, throughput across sessions and daemon memory.
Run by bench/run.sh, which builds everything and cleans up every process this starts."""

import argparse
import json
import os
import secrets
import subprocess
import threading
import time

import bench_processes
import measure_paths as mp
import report
import rows as row_table
import sealed_bench
from stats import ratio, summarize


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


class Bench:
    def __init__(self, args):
        self.args = args
        self.run_token = secrets.token_hex(3)
        self.work = args.work
        self.pid_file = os.path.join(self.work, "pids")
        self.paths = {"daemon": args.daemon, "base_cache": args.base_cache,
                      "base_modcache": args.base_modcache}
        self.results = {"rows": {}, "throughput": {}, "memory": {}, "first_call": {},
                        "overhead": {}, "errors": []}
        self.host_env = mp.host_env(args.cacheprog, args.base_cache, args.base_modcache,
                                    os.path.join(self.work, "host-cache-upper"))

    def nonce(self, *parts):
        return "-".join([self.run_token, *map(str, parts)])

    # One row: warm-up then N repetitions of each path, interleaved.
    def run_row(self, row, daemon, ctx):
        log(f"row {row.key}: {row.title}")
        session = mp.Session(daemon, client=f"bench-{row.key}")
        samples = {"api": [], "cli": [], "sandbox_build_exec": [], "go_run": []}
        # A yaegi row also runs the same program compiled through the daemon, and with the
        # upstream yaegi CLI (which has no symbols for third-party packages such as storage).
        yaegi_row = row.request.get("runtime") in ("yaegi", "auto")
        yaegi_cli = yaegi_row and not row_table.needs_curated_symbols(row)
        if yaegi_row:
            samples["compiled_api"] = []
            samples["api_runner_ready"] = []
        if yaegi_cli:
            samples["yaegi_cli"] = []
        if row.alone:
            samples["compile_link_alone"] = []
            alone_parts = {"compile_ms": [], "link_ms": [], "cpu_ms": [], "fast_flags_ms": [],
                           "fast_flags_cpu_ms": []}
        fallbacks = []
        overheads, outside_daemon, daemon_own, requests = [], [], [], []
        phases = {"setup_ms": [], "build_ms": [], "run_ms": [], "duration_ms": []}
        chosen = {}  # auto: which runtime ran, per repetition kept
        program_dir = os.path.join(self.work, "programs", row.key)
        host_dir = os.path.join(self.work, "go-run", row.key)
        fixed = self.nonce(row.key, "fixed")
        try:
            for rep in range(self.args.warmup + self.args.reps):
                keep = rep >= self.args.warmup
                nonce = (lambda path: fixed) if row.mode == "cached" else (
                    lambda path: self.nonce(row.key, path, rep))
                wall, result = mp.api_call(session, row.program(nonce("api"), ctx), row.request)
                fallbacks += mp.fallback_warnings(result)
                if keep:
                    samples["api"].append(wall)
                    timings = result.get("timings_us")
                    if timings:
                        # Everything but the sandbox's own work (its start and its requests).
                        overheads.append(wall - (timings["setup"] + timings["sandbox"]) / 1000)
                        outside_daemon.append(wall - timings["total"] / 1000)
                        daemon_own.append(timings["daemon"] / 1000)
                        requests.append(result.get("sandbox_requests", 0))
                    else:  # a daemon without microsecond timings
                        inside = sum(result.get(k, 0) for k in ("setup_ms", "build_ms", "run_ms"))
                        overheads.append(wall - inside)
                        outside_daemon.append(wall - result.get("duration_ms", 0))
                    for name, values in phases.items():
                        values.append(result.get(name, 0))
                    ran = result.get("runtime", "?")
                    chosen[ran] = chosen.get(ran, 0) + 1
                if row.expect and row.expect not in result.get("stdout", ""):
                    raise mp.CallFailed(f"stdout lacks {row.expect!r}: "
                                        f"{result.get('stdout', '')[:300]!r}")
                if row.mode == "cached" and keep and not result.get("cache_hit"):
                    raise mp.CallFailed("an identical resubmission was not a binary-cache hit")
                wall = mp.cli_call(self.args.cli, daemon, program_dir,
                                   row.program(nonce("cli"), ctx), session,
                                   row.request.get("runtime"))
                if keep:
                    samples["cli"].append(wall)
                if yaegi_row:
                    # The same call once the runner prestarted after the last one has had time to
                    # start (the api call above comes milliseconds after the session's previous
                    # call, so it may wait for the rest of that start: the cloud runner's is
                    # ~30 ms of CPU; docs/runtimes.md "Two runner binaries").
                    time.sleep(row_table.RUNNER_READY_PAUSE_MS / 1000)
                    wall, _ = mp.api_call(session, row.program(nonce("ready"), ctx), row.request)
                    if keep:
                        samples["api_runner_ready"].append(wall)
                # Baselines build the daemon's normalized program (/app of the call above).
                line = None if row.mode == "cached" and rep > 0 else f"baseline {nonce('sb')}"
                mp.copy_app(session, f"bl-{row.key}", line)
                wall = mp.sandbox_build_exec(session, f"bl-{row.key}")
                if keep:
                    samples["sandbox_build_exec"].append(wall)
                if row.alone:
                    steps, _ = mp.sandbox_compile_link_alone(
                        session, f"bl-{row.key}", f"alone {nonce('alone')}")
                    if keep:
                        samples["compile_link_alone"].append(steps["compile"][0] +
                                                             steps["link"][0])
                        alone_parts["compile_ms"].append(steps["compile"][0])
                        alone_parts["link_ms"].append(steps["link"][0])
                        alone_parts["cpu_ms"].append(steps["compile"][1] + steps["link"][1])
                        alone_parts["fast_flags_ms"].append(steps["compile_fast"][0] +
                                                            steps["link_fast"][0])
                        alone_parts["fast_flags_cpu_ms"].append(steps["compile_fast"][1] +
                                                                steps["link_fast"][1])
                app = os.path.join(mp.sandbox_root(session), "tmp", f"bl-{row.key}")
                line = None if row.mode == "cached" and rep > 0 else f"go run {nonce('gorun')}"
                wall = mp.host_go_run(self.host_env, self.args.lockfile, host_dir, app, line)
                if keep:
                    samples["go_run"].append(wall)
                if yaegi_row:
                    wall, compiled = mp.api_call(session, row.program(nonce("capi"), ctx),
                                                 {"runtime": "compiled-go"})
                    if row.expect and row.expect not in compiled.get("stdout", ""):
                        raise mp.CallFailed(f"compiled stdout lacks {row.expect!r}")
                    if keep:
                        samples["compiled_api"].append(wall)
                if yaegi_cli:
                    wall, out = mp.host_yaegi_cli(self.args.yaegi_cli, self.work, row.key, host_dir)
                    if row.expect and row.expect not in out:
                        raise mp.CallFailed(f"the yaegi CLI's stdout lacks {row.expect!r}: {out[:300]!r}")
                    if keep:
                        samples["yaegi_cli"].append(wall)
        finally:
            session.close()
        summary = {path: summarize(values) for path, values in samples.items()}
        base = summary["sandbox_build_exec"]["median"]
        for path in ("api", "cli", "go_run", "compiled_api", "yaegi_cli", "compile_link_alone"):
            if path in summary:
                summary[path]["ratio_to_sandbox_build_exec"] = ratio(summary[path]["median"], base)
        if row.alone:
            summary["compile_link_alone_parts"] = {name: summarize(values)
                                                   for name, values in alone_parts.items()}
            summary["api_over_compile_link_alone"] = ratio(summary["api"]["median"],
                                                           summary["compile_link_alone"]["median"])
        # Calls the compiled-go plugin built with go build after its fast path declined.
        summary["fallback_warnings"] = {"count": len(fallbacks),
                                        "distinct": sorted(set(fallbacks))[:5]}
        if yaegi_row:
            # How much faster Yaegi answers than compiled-go through the same daemon.
            summary["compiled_api_over_api"] = ratio(summary["compiled_api"]["median"],
                                                     summary["api"]["median"])
            summary["runtime"] = row.request["runtime"]
            summary["runtimes_chosen"] = chosen
        summary["title"] = row.title
        summary["mode"] = row.mode
        summary["overhead_outside_sandbox"] = summarize(overheads)
        summary["outside_daemon_timing"] = summarize(outside_daemon)
        summary["daemon_own_work"] = summarize(daemon_own) if daemon_own else None
        summary["sandbox_requests"] = summarize(requests) if requests else None
        if row.breakdown:
            summary["toolchain_steps"] = self.toolchain_steps(row, host_dir)
        summary["api_phases"] = {name: summarize(values) for name, values in phases.items()}
        self.results["rows"][row.key] = summary
        log(f"  api {summary['api']['median']} ms, cli {summary['cli']['median']} ms, "
            f"sandbox go build+exec {base} ms, go run {summary['go_run']['median']} ms")

    def toolchain_steps(self, row, host_dir):
        """The go command's own steps for this program on the host, timed with -toolexec: the
        compile of the user's package and the link (the dependencies come from the cache)."""
        steps = {"compile_ms": [], "link_ms": [], "go_build_ms": []}
        for rep in range(3):
            measured = mp.host_build_steps(self.host_env, host_dir, self.work,
                                           f"steps {self.nonce(row.key, 'steps', rep)}")
            for name, value in measured.items():
                steps[name].append(value)
        return {name: summarize(values) for name, values in steps.items()}

    def first_call(self, daemon, ctx):
        """Restart the daemon; time the first call (open session + execute, fresh program)."""
        log("first call after a daemon start")
        starts, opened, api, cli, fresh_builds = [], [], [], [], []
        warm_ready, api_immediate = [], []
        first_phases = {"setup_ms": [], "build_ms": [], "run_ms": []}
        hello = row_table.ROWS[0].program
        for rep in range(self.args.first_call_reps):
            # Right after /v1/health answers, before the warm pool has a sandbox ready.
            daemon.stop()
            daemon.start(self.pid_file)
            start = time.monotonic()
            session = mp.Session(daemon, client="bench-first-immediate")
            mp.api_call(session, hello(self.nonce("first-immediate", rep), ctx))
            api_immediate.append((time.monotonic() - start) * 1000)
            session.close()
            # Once the daemon is ready: its warm pool holds a started sandbox.
            daemon.stop()
            starts.append(daemon.start(self.pid_file))
            waited = daemon.wait_for_warm_pool()
            if waited is not None:
                warm_ready.append(waited)
            start = time.monotonic()
            session = mp.Session(daemon, client="bench-first")
            opened.append((time.monotonic() - start) * 1000)
            _, result = mp.api_call(session, hello(self.nonce("first-api", rep), ctx))
            api.append((time.monotonic() - start) * 1000)
            for name in first_phases:
                first_phases[name].append(result.get(name, 0))
            session.close()
            # The toolchain's own first build in a fresh sandbox: a second new session runs the
            # same program (a binary-cache hit, so the daemon builds nothing), then go build +
            # exec of an edited copy in that sandbox is its first build.
            fresh = mp.Session(daemon, client="bench-first-baseline")
            try:
                mp.api_call(fresh, hello(self.nonce("first-api", rep), ctx))
                mp.copy_app(fresh, "bl-first", f"baseline {self.nonce('first-sb', rep)}")
                fresh_builds.append(mp.sandbox_build_exec(fresh, "bl-first"))
            finally:
                fresh.close()
            # The CLI path: no daemon running; `kode-gopher exec` starts one and waits for it.
            daemon.stop()
            try:
                cli.append(mp.cli_call(self.args.cli, daemon,
                                       os.path.join(self.work, "programs", "first-cli"),
                                       hello(self.nonce("first-cli", rep), ctx)))
            finally:
                self.stop_unowned_daemon(daemon)
        daemon.start(self.pid_file)
        self.results["first_call"] = {"daemon_start_to_health": summarize(starts),
                                      "health_to_warm_pool": summarize(warm_ready) if warm_ready else None,
                                      "api_immediate": summarize(api_immediate),
                                      "session_open": summarize(opened), "api": summarize(api),
                                      "cli_autostart": summarize(cli),
                                      "sandbox_build_exec_fresh_sandbox": summarize(fresh_builds),
                                      "api_phases": {name: summarize(values)
                                                     for name, values in first_phases.items()}}

    def stop_unowned_daemon(self, daemon):
        """Stops a daemon the CLI started (found by its /v1/health pid)."""
        try:
            _, health = mp.unix_http.request(daemon.socket, "GET", "/v1/health", timeout=5)
        except mp.unix_http.ApiError:
            return
        pid = (health or {}).get("pid")
        if not pid:
            return
        with open(self.pid_file, "a") as pids:
            pids.write(f"{pid}\n")
        os.kill(pid, 15)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.05)
        if os.path.exists(f"/proc/{pid}"):
            os.kill(pid, 9)

    def throughput(self, daemon, ctx):
        hello = row_table.ROWS[0].program
        peak = {"kib": 0}
        for k in self.args.concurrency:
            log(f"throughput with {k} concurrent sessions")
            sessions = [mp.Session(daemon, client=f"bench-tp{k}-{i}") for i in range(k)]
            try:
                self.parallel(sessions, lambda s, i: mp.api_call(s, hello(self.nonce("tpw", k, i), ctx)))
                stop = threading.Event()
                sampler = threading.Thread(target=self.sample_rss, args=(daemon, stop, peak))
                sampler.start()
                calls = self.args.throughput_calls
                start = time.monotonic()
                self.parallel(sessions, lambda s, i: [
                    mp.api_call(s, hello(self.nonce("tp", k, i, c), ctx)) for c in range(calls)])
                api_wall = time.monotonic() - start
                stop.set()
                sampler.join()

                def baseline(s, i):
                    for c in range(calls):
                        mp.copy_app(s, "bl-tp", f"baseline {self.nonce('tpb', k, i, c)}")
                        mp.sandbox_build_exec(s, "bl-tp")
                start = time.monotonic()
                self.parallel(sessions, baseline)
                base_wall = time.monotonic() - start
            finally:
                for s in sessions:
                    s.close()
            api_rate = k * calls / api_wall
            base_rate = k * calls / base_wall
            self.results["throughput"][str(k)] = {
                "calls": k * calls, "api_calls_per_s": round(api_rate, 2),
                "sandbox_build_exec_per_s": round(base_rate, 2),
                "ratio_to_baseline": ratio(api_rate, base_rate)}
            log(f"  {api_rate:.2f} calls/s (baseline {base_rate:.2f}/s)")
            self.results["throughput"][str(k)]["yaegi_calls_per_s"] = round(
                self.interpreted_rate(daemon, ctx, k), 2)
        self.results["memory"]["under_load_peak_kib"] = peak["kib"]

    def interpreted_rate(self, daemon, ctx, k):
        """Yaegi hello calls/s across k sessions, distinct programs (issue 27: >= 50 across 8)."""
        row = next(r for r in row_table.ROWS if r.key == "yaegi_hello")
        calls = max(self.args.throughput_calls, 10)
        sessions = [mp.Session(daemon, client=f"bench-tpy{k}-{i}") for i in range(k)]
        try:
            self.parallel(sessions, lambda s, i: mp.api_call(
                s, row.program(self.nonce("tpyw", k, i), ctx), row.request))
            start = time.monotonic()
            self.parallel(sessions, lambda s, i: [
                mp.api_call(s, row.program(self.nonce("tpy", k, i, c), ctx), row.request)
                for c in range(calls)])
            wall = time.monotonic() - start
        finally:
            for s in sessions:
                s.close()
        rate = k * calls / wall
        log(f"  interpreted: {rate:.2f} yaegi calls/s")
        return rate

    @staticmethod
    def parallel(sessions, work):
        errors = []

        def run(s, i):
            try:
                work(s, i)
            except Exception as error:  # reported below, in the main thread
                errors.append(error)
        threads = [threading.Thread(target=run, args=(s, i)) for i, s in enumerate(sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(900)
        if errors:
            raise errors[0]

    @staticmethod
    def sample_rss(daemon, stop, peak):
        while not stop.wait(0.05):
            kib = daemon.rss_kib() or 0
            peak["kib"] = max(peak["kib"], kib)

    def run(self):
        main = bench_processes.Daemon("daemon-main", self.work, self.paths)
        try:
            main.start(self.pid_file)
            _, health = mp.unix_http.request(main.socket, "GET", "/v1/health", timeout=5)
            self.results["isolation"] = (health or {}).get("isolation", [])
            for line in self.results["isolation"]:
                if "maps to root" in line:
                    log(f"WARNING: not the default isolation: {line}")
            time.sleep(1)
            self.results["memory"]["idle_after_start_kib"] = main.rss_kib()
            ctx = {}
            if self.wanted("first_call"):
                self.section(self.first_call, main, ctx)
            for row in row_table.ROWS:
                if row.daemon == "main" and self.wanted(row.key):
                    self.section(self.run_row, row, main, ctx)
            if self.wanted("throughput"):
                self.section(self.throughput, main, ctx)
            time.sleep(2)
            self.results["memory"]["idle_after_load_kib"] = main.rss_kib()
        finally:
            main.stop()
        storage_rows = [r for r in row_table.ROWS if r.daemon == "storage" and self.wanted(r.key)]
        if storage_rows:
            self.section(self.storage, storage_rows)
        if self.wanted("sealed"):
            self.section(self.sealed, "sealed")
        return self.results

    def sealed(self, _label):
        """Issue 25: the storage listing in mode sealed beside mode access-token (sealed_bench)."""
        log("sealed credentials beside access-token (issue 25)")
        sealed_bench.run(self)

    def storage(self, storage_rows):
        """Rows against fake-gcs-server on loopback, in a daemon with [sandbox] network = host."""
        gcs = daemon = None
        try:
            gcs = bench_processes.FakeGcs(self.args.fake_gcs, self.work, self.pid_file,
                                          "bench-bucket", 5)
            daemon = bench_processes.Daemon("daemon-storage", self.work, self.paths,
                                            network="host")
            daemon.start(self.pid_file)
            ctx = {"emulator": gcs.host, "bucket": "bench-bucket"}
            for row in storage_rows:
                self.section(self.run_row, row, daemon, ctx)
        finally:
            if daemon:
                daemon.stop()
            if gcs:
                gcs.stop()

    def wanted(self, name):
        return not self.args.only or name in self.args.only

    def section(self, function, *args):
        """A failed section is recorded and the run goes on, so one broken path never hides
        the others."""
        try:
            function(*args)
        except Exception as error:
            name = getattr(args[0], "key", function.__name__)
            log(f"FAILED {name}: {error}")
            self.results["errors"].append(f"{name}: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    for name in ("work", "daemon", "cli", "cacheprog", "fake-gcs", "base-cache", "base-modcache",
                 "lockfile", "out-dir", "yaegi-cli"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--only", type=lambda s: s.split(","), default=[],
                        help="comma-separated row keys, first_call, throughput, sealed (default: all)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--first-call-reps", type=int, default=5)
    parser.add_argument("--throughput-calls", type=int, default=3)
    parser.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 2, 4, 8])
    args = parser.parse_args()
    for name in ("work", "daemon", "cli", "cacheprog", "fake_gcs", "base_cache", "base_modcache",
                 "lockfile", "out_dir", "yaegi_cli"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    load_before = report.load_average()
    results = Bench(args).run()
    results["machine"] = report.machine_info()
    results["settings"] = {"reps": args.reps, "warmup": args.warmup,
                           "first_call_reps": args.first_call_reps,
                           "throughput_calls_per_session": args.throughput_calls,
                           "loadavg_before": load_before, "loadavg_after": report.load_average()}
    report.write(results, args.out_dir)
    log(f"wrote {args.out_dir}/RESULTS.md and results.json")
    return 1 if results["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
