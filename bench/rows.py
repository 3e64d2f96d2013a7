"""The benchmark's rows: one entry per path measured. Adding a row (a new runtime, the credentialed
storage path) is one Row(...) line here plus, if new, its Go program in go_programs.py.

  program  nonce, ctx -> {path: source}; a new nonce is a one-line edit (forces a real build)
  mode     "compile": every repetition gets a new nonce (a real go build of the user's package);
           "cached":  every repetition resubmits the same program (the binary cache's hit)
  daemon   "main" (the default sandbox, no network) or "storage" ([sandbox] network = host)
  request  extra members of the ExecuteRequest (e.g. {"runtime": "yaegi"} for the next runtime)
  expect   text the API call's stdout must contain (so a row never times a wrong answer)
  breakdown  also time go build's own steps (compile of the user's package, link) on the host
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


def _main(template):
    return lambda nonce, ctx: {"main.go": template.format(nonce=nonce, **ctx)}


ROWS = [
    Row("hello", "compiled hello-world snippet, warm session", _main(go_programs.HELLO),
        expect="hello, gopher", breakdown=True),
    Row("edit", "compiled after a one-line edit (wrapped snippet)",
        _main(go_programs.EDITED_SNIPPET), expect="one line edited"),
    Row("cache_hit", "identical resubmission (binary cache)", _main(go_programs.HELLO),
        mode="cached", expect="hello, gopher"),
    Row("mib_output", "1 MiB-output program, compiled", _main(go_programs.MIB_OUTPUT)),
    Row("storage", "cloud.google.com/go/storage listing fake-gcs-server, compiled",
        _main(go_programs.STORAGE), daemon="storage", expect="objects: 5", breakdown=True),
]
