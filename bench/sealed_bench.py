"""Issue 25's benchmark rows: the same storage listing program (go_programs.SEALED_STORAGE) run
through two daemons in one run, one with creds-adc in mode sealed, one in mode access-token, both
with network = allowlist in sealed_world.py's namespaces (fake-gcs-server as
storage.googleapis.com over HTTPS). The calls alternate, sealed then access-token, in every
repetition; after a warm-up that builds the program in each daemon, each call is a binary-cache
hit, so what differs is the program's run.

Reported (results.json "sealed", RESULTS.md "Sealed credentials (issue 25)"):
  - per daemon: the API wall time, the result's api_calls count, the program's own time for its
    listings through the proxy's TLS termination and through a blind CONNECT tunnel;
  - the proxy's added latency per request, two ways: the API wall difference between the two
    modes divided by the requests the proxy read (api_calls.count), and, per call, the program's
    listings through the terminating proxy minus the same listings through the tunnel, divided by
    their number (connection set-up excluded: each path's first listing is timed apart).
In mode access-token the proxy terminates TLS too (docs/egress.md: the API policy reads every
request in every mode), so sealed − access-token is the token swap's own cost, and
terminated − tunnel the whole cost of reading requests (TLS on both sides, HTTP parsing, policy,
record), which is what issue 25's "under 5 ms median" is measured against.
"""

import re

import bench_processes
import go_programs
import measure_paths as mp
import sealed_world
from stats import summarize

BUCKET = "bench-bucket"
OBJECTS = 5
LISTINGS = 10
GOAL_MS = 5.0
MODES = ("sealed", "access-token")


def _number(stdout, name):
    found = re.search(rf"^{name}: (\d+)$", stdout, re.MULTILINE)
    if not found:
        raise mp.CallFailed(f"the program printed no {name}: {stdout[:400]!r}")
    return int(found.group(1))


def run(bench):
    """The section: makes the world and both daemons, measures, stores bench.results["sealed"]."""
    world = None
    daemons = {}
    try:
        world = sealed_world.SealedWorld(bench.work, bench.pid_file, bench.args.fake_gcs, BUCKET,
                                         OBJECTS)
        for mode in MODES:
            config = world.creds_config(mode)
            daemon = bench_processes.Daemon(f"daemon-{mode}", bench.work, bench.paths,
                                            network="allowlist", sandbox_keys=config["sandbox"],
                                            extra_sections=config["extra"],
                                            wrap=world.in_daemons)
            daemon.start(bench.pid_file)
            daemons[mode] = daemon
        files = {"main.go": go_programs.SEALED_STORAGE.format(
            nonce=bench.nonce("sealed"), bucket=BUCKET, listings=LISTINGS,
            tunnel_host=sealed_world.TUNNEL_HOST, tunnel_cert=world.cert_pem)}
        bench.results["sealed"] = measure(bench, daemons, files)
    finally:
        for daemon in daemons.values():
            daemon.stop()
        if world:
            world.stop()


def measure(bench, daemons, files):
    sessions = {mode: mp.Session(daemons[mode], client=f"bench-{mode}") for mode in MODES}
    samples = {mode: {"api": [], "api_calls": [], "run": [], "proxy_per_request": [],
                      "tunnel_per_request": [], "added_per_request": [], "proxy_first": [],
                      "tunnel_first": []} for mode in MODES}
    try:
        for rep in range(bench.args.warmup + bench.args.reps):
            keep = rep >= bench.args.warmup
            for mode in MODES:
                wall, result = mp.api_call(sessions[mode], files)
                stdout = result.get("stdout", "")
                if f"objects: {OBJECTS} {OBJECTS}" not in stdout:
                    raise mp.CallFailed(f"{mode}: stdout lacks the listings: {stdout[:400]!r}")
                placeholder = "placeholder token: true" in stdout
                if placeholder != (mode == "sealed"):
                    raise mp.CallFailed(f"{mode}: the program's token is "
                                        f"{'' if placeholder else 'not '}a placeholder")
                count = (result.get("api_calls") or {}).get("count", 0)
                if count < LISTINGS:
                    raise mp.CallFailed(f"{mode}: api_calls counts {count} requests, the program "
                                        f"made {LISTINGS} through the proxy")
                if rep > 0 and not result.get("cache_hit"):
                    raise mp.CallFailed(f"{mode}: an identical resubmission was not a cache hit")
                if not keep:
                    continue
                s = samples[mode]
                s["api"].append(wall)
                s["api_calls"].append(count)
                s["run"].append(result.get("run_ms", 0))
                proxy_rest = _number(stdout, "proxy_rest_us") / 1000 / (LISTINGS - 1)
                tunnel_rest = _number(stdout, "tunnel_rest_us") / 1000 / (LISTINGS - 1)
                s["proxy_per_request"].append(proxy_rest)
                s["tunnel_per_request"].append(tunnel_rest)
                s["added_per_request"].append(proxy_rest - tunnel_rest)
                s["proxy_first"].append(_number(stdout, "proxy_first_us") / 1000)
                s["tunnel_first"].append(_number(stdout, "tunnel_first_us") / 1000)
    finally:
        for session in sessions.values():
            session.close()
    out = {"listings_per_path": LISTINGS, "goal_ms": GOAL_MS,
           "modes": {mode: {name: summarize(values) for name, values in s.items()}
                     for mode, s in samples.items()}}
    # The brief's formula: the API wall difference over the requests the proxy read, per pair.
    per_pair = [(a - b) / n for a, b, n in zip(samples["sealed"]["api"],
                                               samples["access-token"]["api"],
                                               samples["sealed"]["api_calls"]) if n]
    out["sealed_minus_access_token_per_request"] = summarize(per_pair)
    out["added_per_request"] = out["modes"]["sealed"]["added_per_request"]
    median = out["added_per_request"]["median"] if out["added_per_request"] else None
    out["goal_met"] = median is not None and median < GOAL_MS
    print(f"  sealed: api {out['modes']['sealed']['api']['median']} ms, access-token "
              f"{out['modes']['access-token']['api']['median']} ms; proxy's added latency "
              f"{median} ms per request (goal < {GOAL_MS} ms)", flush=True)
    return out
