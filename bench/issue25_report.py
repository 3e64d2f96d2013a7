"""RESULTS.md's issue-25 parts (sealed_bench.py's measurements): the storage listing in mode
sealed beside mode access-token, what the egress proxy adds per request, and the issue's target
(under 5 ms median per request)."""


def _get(data, *keys):
    for key in keys:
        if not isinstance(data, dict) or data.get(key) is None:
            return None
        data = data[key]
    return data


def section(r):
    s = r.get("sealed")
    if not s:
        return []
    n = s["listings_per_path"]
    lines = ["", "## Sealed credentials beside access-token (issue 25)", "",
             f"One storage program (`cloud.google.com/go/storage`, nothing test-specific) lists a "
             f"bucket of `storage.googleapis.com` {n} times through the daemon's egress proxy, "
             f"then {n} times through a blind CONNECT tunnel to an allowed name that is not a "
             "Google API host (relayed unread), each timed in the program. It runs through two "
             "daemons in the same repetitions, alternated: creds-adc in mode sealed (the program "
             "holds a placeholder; the proxy terminates TLS and puts the real token in) and in "
             "mode access-token (the program holds the token; the proxy terminates TLS too, to "
             "read and record each request). fake-gcs-server over HTTPS stands in for Google, in "
             "network namespaces the bench makes (bench/sealed_world.py). After a warm-up build "
             "each call is a binary-cache hit. Each path's first listing (connection and TLS "
             "set-up) is left out of the per-request times. Medians (p95), ms.", "",
             "| daemon | API | requests the proxy read (api_calls) | per listing through the "
             "proxy | per listing through the tunnel | proxy − tunnel per request | first "
             "listing through the proxy / the tunnel |", "|---|---|---|---|---|---|---|"]
    for mode in ("sealed", "access-token"):
        m = s["modes"][mode]

        def cell(name, m=m):
            return f"{_get(m, name, 'median')} ({_get(m, name, 'p95')})"
        lines.append(f"| {mode} | {cell('api')} | {_get(m, 'api_calls', 'median')} | "
                     f"{cell('proxy_per_request')} | {cell('tunnel_per_request')} | "
                     f"{cell('added_per_request')} | {_get(m, 'proxy_first', 'median')} / "
                     f"{_get(m, 'tunnel_first', 'median')} |")
    pair = s.get("sealed_minus_access_token_per_request")
    lines += ["", "(API wall of the sealed call − API wall of the access-token call of the same "
              "repetition) / requests the proxy read, per repetition: median "
              f"{_get(pair, 'median')} ms (p95 {_get(pair, 'p95')}): the token swap's own cost, "
              "inside the noise of a whole call."]
    return lines


def targets(r):
    s = r.get("sealed")
    if not s or not s.get("added_per_request"):
        return []
    added = s["added_per_request"]
    access = _get(s, "modes", "access-token", "added_per_request", "median")
    return [("sealed: the egress proxy adds < 5 ms per request (median)",
             f"{added['median']} ms (p95 {added['p95']}) per request, proxy − blind tunnel in "
             f"mode sealed; {access} ms in mode access-token",
             added["median"] < s["goal_ms"],
             "the proxy's own work per request: TLS on both sides, HTTP parsing, the policy, "
             "the record")]


def targets_section(r):
    t = targets(r)
    if not t:
        return []
    lines = ["", "## Targets (issue 25, sealed credentials)", "",
             "| target | measured | met | bounded by (measured) |", "|---|---|---|---|"]
    for target, measured, met, bound in t:
        lines.append(f"| {target} | {measured} | {'met' if met else '**not met**'} | "
                     f"{'' if met else bound} |")
    return lines
