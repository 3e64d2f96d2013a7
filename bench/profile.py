#!/usr/bin/env python3
"""Issue 15's profile of a warm compiled call: where the time of the hello snippet and of the
one-line-edit snippet goes, measured in a session's sandbox and on the host in the same run.

Per repetition and row: the daemon API call (compiled-go, warm session), then, on the daemon's
normalized program copied in the same sandbox and on the host (same toolchain, flags, lockfile,
base build cache through the same GOCACHEPROG), each probe of profile_probes.py in the sandbox
and right after it on the host: go build after a one-line edit; the same with -debug-trace (the
go command's phases); running the binary; the user package's compile and the link alone (go
build's flags and importcfg, run directly); an empty command; process starts; system calls.
Writes PROFILE.md and profile.json into --out-dir. Run by `bench/run.sh --profile`."""

import argparse
import collections
import json
import os
import secrets
import time

import bench_processes
import measure_paths as mp
import profile_probes
import profile_report
import report
import rows as row_table
from profile_places import HostPlace, SandboxPlace
from stats import summarize


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def api_sample(session, row, ctx, nonce):
    wall, result = mp.api_call(session, row.program(nonce, ctx))
    timings = result.get("timings_us") or {}
    out = {"api": wall, "fallback": 1 if mp.fallback_warnings(result) else 0}
    for name in ("setup", "build", "run"):
        if name in timings:
            out[f"api_{name}"] = timings[name] / 1000
    if timings:
        # Replacing /app (one upload), the daemon's own work, HTTP + JSON on its socket.
        out["api_rest"] = wall - sum(timings.get(n, 0) for n in ("setup", "build", "run")) / 1000
    return out


def profile_on(args, daemon, rows, ctx, token):
    """Every repetition of `rows` in one session of `daemon` and on the host; returns
    ({row: {place: {metric: summary}}}, the daemon's isolation lines)."""
    samples = {row.key: collections.defaultdict(lambda: collections.defaultdict(list))
               for row in rows}
    syscalls = {}
    session = mp.Session(daemon, client="bench-profile")
    try:
        sandbox = SandboxPlace(session)
        host = HostPlace(mp.host_env(args.cacheprog, args.base_cache, args.base_modcache,
                                     os.path.join(args.work, "host-cache-upper")),
                         args.work, args.lockfile, sandbox)
        for rep in range(args.warmup + args.reps):
            keep = rep >= args.warmup
            for row in rows:
                log(f"repetition {rep + 1}/{args.warmup + args.reps}: {row.key}")
                nonce = f"{token}-{row.key}-{rep}"
                measured = api_sample(session, row, ctx, f"{nonce}-api")
                if keep:
                    for name, value in measured.items():
                        samples[row.key]["api"][name].append(value)
                sandbox.prepare(row.key, f"profile {nonce}")
                host.prepare(row.key, f"profile {nonce}")
                for probe in profile_probes.probes_for(row):
                    for place in (sandbox, host):
                        values = probe(place, row.key, f"{nonce}-{probe.__name__}-{place.name}")
                        if keep:
                            for name, value in values.items():
                                samples[row.key][place.name][name].append(value)
        for row in rows:
            syscalls[row.key] = profile_probes.host_syscall_count(host, row.key,
                                                                  f"{token}-{row.key}-strace")
    finally:
        session.close()
    health = mp.unix_http.request(daemon.socket, "GET", "/v1/health", timeout=5)[1] or {}
    results = {key: {place: {name: summarize(values) for name, values in metrics.items()}
                     for place, metrics in by_place.items()} | {"host_syscalls": syscalls[key]}
               for key, by_place in samples.items()}
    return results, health.get("isolation", [])


def profile(args, rows):
    """The main daemon's rows, then the storage rows against fake-gcs-server in a daemon with
    [sandbox] network = host (as kgbench.py runs them)."""
    token = secrets.token_hex(3)
    pid_file = os.path.join(args.work, "pids")
    paths = {"daemon": args.daemon, "base_cache": args.base_cache,
             "base_modcache": args.base_modcache}
    results, isolation = {}, []
    main_rows = [row for row in rows if row.daemon == "main"]
    if main_rows:
        daemon = bench_processes.Daemon("daemon-profile", args.work, paths)
        daemon.start(pid_file)
        try:
            found, isolation = profile_on(args, daemon, main_rows, {}, token)
            results.update(found)
        finally:
            daemon.stop()
    storage_rows = [row for row in rows if row.daemon == "storage"]
    if storage_rows:
        gcs = bench_processes.FakeGcs(args.fake_gcs, args.work, pid_file, "bench-bucket", 5)
        daemon = bench_processes.Daemon("daemon-profile-storage", args.work, paths,
                                        network="host")
        try:
            daemon.start(pid_file)
            ctx = {"emulator": gcs.host, "bucket": "bench-bucket"}
            found, storage_isolation = profile_on(args, daemon, storage_rows, ctx, token)
            results.update(found)
            isolation = isolation or storage_isolation
        finally:
            daemon.stop()
            gcs.stop()
    return results, isolation


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("work", "daemon", "cacheprog", "base-cache", "base-modcache", "lockfile",
                 "out-dir"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rows", type=lambda s: s.split(","), default=["hello", "edit"],
                        help="compiled rows of rows.py: hello, edit, mib_output, storage")
    parser.add_argument("--fake-gcs", help="fake-gcs-server, for the storage row")
    args, _ = parser.parse_known_args()
    for name in ("work", "daemon", "cacheprog", "base_cache", "base_modcache", "lockfile",
                 "out_dir"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    rows = [row for row in row_table.ROWS if row.key in args.rows]
    if not rows or any(row.mode != "compile" or row.request for row in rows):
        parser.error("--rows takes compiled rows: hello, edit, mib_output, storage")
    if any(row.daemon == "storage" for row in rows) and not args.fake_gcs:
        parser.error("the storage row needs --fake-gcs")
    load_before = report.load_average()
    results, isolation = profile(args, rows)
    results = {"rows": results, "titles": {row.key: row.title for row in rows},
               "machine": report.machine_info(), "isolation": isolation,
               "settings": {"reps": args.reps, "warmup": args.warmup,
                            "loadavg_before": load_before, "loadavg_after": report.load_average()}}
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "profile.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    text = profile_report.markdown(results)
    with open(os.path.join(args.out_dir, "PROFILE.md"), "w") as f:
        f.write(text)
    print(text)
    log(f"wrote {args.out_dir}/PROFILE.md and profile.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
