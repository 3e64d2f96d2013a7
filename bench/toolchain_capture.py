"""What `go build` does for one program, taken apart so its pieces can be timed alone:

- compile_link_script: from the `go build -x -work` log, a shell script that runs the user's
  package's `compile` and the `link` directly, with exactly the flags and importcfg files go
  build used (kept by -work), and prints how long each took ("compiler + linker alone").
- trace_phases: from a `go build -debug-trace=FILE` trace (Chrome trace JSON), the go command's
  own phases: package loading, planning, the dependencies' action-cache checks, the user
  package's build action, the link action and installing the binary.

Used by kgbench.py (the "compiler + linker alone" column) and profile.py (issue 15's profile)."""

import json
import re

# Prints "kg-alone <compile ns> <link ns>" last; each span is taken with `date +%s%N` (one process
# start, ~1 ms, lands in each span), then removes the work folder -work kept.
_SCRIPT = """set -e
WORK={work}
cd {directory}
t0=$(date +%s%N)
{compile}
t1=$(date +%s%N)
{link}
t2=$(date +%s%N)
echo "kg-alone $((t1 - t0)) $((t2 - t1))"
rm -rf "$WORK"
"""


class CaptureFailed(RuntimeError):
    pass


def compile_link_script(x_log):
    """The script that reruns the main package's compile and the link of a `go build -x -work`
    log. Raises CaptureFailed when the log has no compile of package main (the package came from
    the cache: the caller must edit the program before capturing)."""
    work = directory = compile_line = link_line = None
    current_dir = None
    for line in x_log.splitlines():
        if line.startswith("WORK="):
            work = line[len("WORK="):].strip()
        elif line.startswith("cd "):
            current_dir = line[3:].strip()
        elif "/compile -o $WORK/" in line and " -p main " in line:
            compile_line, directory = line, current_dir
        elif "/link -o $WORK/" in line:
            link_line = line
    missing = [name for name, value in (("WORK", work), ("compile of package main", compile_line),
                                        ("link", link_line), ("its folder", directory))
               if not value]
    if missing:
        raise CaptureFailed(f"the go build -x -work log lacks {', '.join(missing)}: "
                            f"{x_log[-600:]!r}")
    return _SCRIPT.format(work=work, directory=directory, compile=compile_line, link=link_line)


def parse_alone(stdout):
    """(compile ms, link ms) from the script's output."""
    match = re.search(r"kg-alone (\d+) (\d+)", stdout)
    if not match:
        raise CaptureFailed(f"compile + link alone printed no times: {stdout[-300:]!r}")
    return int(match.group(1)) / 1e6, int(match.group(2)) / 1e6


def _spans(events):
    """name -> list of (begin µs, end µs) from B/E pairs (matched per name and thread)."""
    open_spans, spans = {}, {}
    for event in events:
        key = (event["name"], event.get("tid"))
        if event["ph"] == "B":
            open_spans.setdefault(key, []).append(event["ts"])
        elif event["ph"] == "E" and open_spans.get(key):
            begin = open_spans[key].pop()
            spans.setdefault(event["name"], []).append((begin, event["ts"]))
    return spans


def trace_phases(trace_text):
    """The go command's phases (ms) from its -debug-trace JSON:
      command       the traced command, from the go command's main to its end
      load          load.PackagesAndErrors: go.mod, finding and parsing every imported package
      plan          from loading's end to the action graph's run (building the action graph)
      dep_checks    from the run's start to the user package's build action: hashing each
                    dependency's action ID and looking it up (through GOCACHEPROG), on the
                    critical path
      compile_action  the user package's build action (its cache check is before it): the
                    compile process, and storing its output in the cache
      link_action   the link action: the link process
      install       link-install: moving the binary to -o
      cache_checks  the sum of every 'build check cache' action (in parallel, so more than
                    its share of the wall time)
      actions       how many actions ran"""
    events = json.loads(trace_text)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    spans = _spans(events)

    def one(prefix):
        for name, found in spans.items():
            if name.startswith(prefix):
                return name, found[0]
        return None, None

    _, command = one("Running build command")
    _, load = one("load.PackagesAndErrors")
    _, run = one("exec.Builder.Do")
    link_name, link = one("Executing action (link ")
    if not (command and load and run and link):
        raise CaptureFailed("the -debug-trace lacks the build command, loading, the action "
                            "run or the link action")
    main_package = link_name[len("Executing action (link "):-1]
    _, compile_action = one(f"Executing action (build {main_package})")
    _, install = one("Executing action (link-install ")
    checks = [end - begin for name, found in spans.items()
              if name.startswith("Executing action (build check cache") for begin, end in found]
    actions = sum(len(found) for name, found in spans.items() if name.startswith("Executing action"))

    def ms(span):
        return round((span[1] - span[0]) / 1000, 1) if span else 0.0
    first_action = compile_action[0] if compile_action else link[0]
    return {"command": ms(command), "load": ms(load), "plan": ms((load[1], run[0])),
            "dep_checks": ms((run[0], first_action)), "compile_action": ms(compile_action),
            "link_action": ms(link), "install": ms(install),
            "cache_checks": round(sum(checks) / 1000, 1), "actions": actions}
