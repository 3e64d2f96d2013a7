"""The benchmark's rows: one entry per path measured. Adding a row (a new runtime, the credentialed
storage path) is one Row(...) line here plus, if new, its Go program in go_programs.py.

  program  nonce, ctx -> {path: source}; a new nonce is a one-line edit (forces a real build)
  mode     "compile": every repetition gets a new nonce (a real go build of the user's package);
           "cached":  every repetition resubmits the same program (the binary cache's hit)
  daemon   "main" (the default sandbox, no network) or "storage" ([sandbox] network = host)
  request  extra members of the ExecuteRequest (e.g. {"runtime": "yaegi"}); a yaegi or auto row
           is also measured through the daemon with compiled-go and with the upstream yaegi CLI
           (cmd/yaegi at the runner's pinned version) on the host, in the same repetitions (a
           "cached" auto row's compiled-go call resubmits the same program, so from the second
           repetition on compiled-go has built it)
  expect   text the API call's stdout must contain (so a row never times a wrong answer)
  breakdown  also time go build's own steps (compile of the user's package, link) on the host
  alone    also time the compile of the user's package and the link run directly, with the
           flags and importcfg go build used, in the same sandbox and the same repetitions
           ("compiler + linker alone", issue 15's floor)
"""

from dataclasses import dataclass, field

import go_programs


@dataclass
class Row:
    key: str
    title: str
    program: object
    mode: str = "compile"
    daemon: str = "main"
    request: dict = field(default_factory=dict)
    expect: str = ""
    breakdown: bool = False
    alone: bool = False


def _main(template):
    return lambda nonce, ctx: {"main.go": template.format(nonce=nonce, **ctx)}

# How long a yaegi row waits before its api_runner_ready call: ample for a prestarted runner,
# even the cloud one on a loaded machine, to be waiting with its tables loaded.
RUNNER_READY_PAUSE_MS = 300


def needs_curated_symbols(row):
    """Whether the row's program imports a third-party (curated) package: the upstream yaegi CLI
    has symbol tables for the standard library only, so it cannot run it."""
    return row.daemon == "storage"


ROWS = [
    Row("hello", "compiled hello-world snippet, warm session", _main(go_programs.HELLO),
        expect="hello, gopher", breakdown=True, alone=True),
    Row("edit", "compiled after a one-line edit (wrapped snippet)",
        _main(go_programs.EDITED_SNIPPET), expect="one line edited", alone=True),
    Row("cache_hit", "identical resubmission (binary cache)", _main(go_programs.HELLO),
        mode="cached", expect="hello, gopher"),
    Row("mib_output", "1 MiB-output program, compiled", _main(go_programs.MIB_OUTPUT)),
    Row("storage", "cloud.google.com/go/storage listing fake-gcs-server, compiled",
        _main(go_programs.STORAGE), daemon="storage", expect="objects: 5", breakdown=True,
        alone=True),
    Row("yaegi_hello", "Yaegi hello-world program, warm session", _main(go_programs.HELLO),
        request={"runtime": "yaegi"}, expect="hello, gopher"),
    Row("yaegi_shaping", "Yaegi data-shaping snippet (2000 JSON records grouped and sorted)",
        _main(go_programs.DATA_SHAPING), request={"runtime": "yaegi"}, expect="shaped 2000 orders"),
    Row("yaegi_storage", "Yaegi: cloud.google.com/go/storage listing fake-gcs-server",
        _main(go_programs.STORAGE), daemon="storage", request={"runtime": "yaegi"},
        expect="objects: 5"),
    Row("yaegi_sieve", "Yaegi: prime sieve below 2e6 (CPU-bound)", _main(go_programs.PRIME_SIEVE),
        request={"runtime": "yaegi"}, expect="primes below 2000000: 148933"),
    # auto (issue 27): each beside compiled-go in the same repetitions; none may be slower.
    Row("auto_hello", "auto: hello-world program", _main(go_programs.HELLO),
        request={"runtime": "auto"}, expect="hello, gopher"),
    Row("auto_shaping", "auto: data-shaping snippet", _main(go_programs.DATA_SHAPING),
        request={"runtime": "auto"}, expect="shaped 2000 orders"),
    Row("auto_sieve", "auto: prime sieve below 2e6 (CPU-bound)", _main(go_programs.PRIME_SIEVE),
        request={"runtime": "auto"}, expect="primes below 2000000: 148933"),
    Row("auto_resubmit", "auto: identical resubmission of a program compiled-go built",
        _main(go_programs.HELLO), mode="cached", request={"runtime": "auto"},
        expect="hello, gopher"),
]
