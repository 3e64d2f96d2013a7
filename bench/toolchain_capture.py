"""What `go build` does for one program, taken apart so its pieces can be timed alone:

- compile_link_command: from the `go build -x -work` log, a command that runs the user's
  package's `compile` and the `link` directly, with exactly the flags and importcfg files go
  build used (kept by -work), and prints how long each took, wall and CPU ("compiler + linker
  alone"); timer_command times any other command the same way.
- trace_phases: from a `go build -debug-trace=FILE` trace (Chrome trace JSON), the go command's
  own phases: package loading, planning, the dependencies' action-cache checks, the user
  package's build action, the link action and installing the binary.

Used by kgbench.py (the "compiler + linker alone" column) and profile.py (issue 15's profile)."""

import json
import shlex

# Runs each step (name, extra env, argv) as a child and prints "kg-steps {name: [wall ms, CPU
# ms]}": wall from just before the fork to the exit, CPU as user + system of the child and its
# threads (RUSAGE_CHILDREN), which a loaded machine disturbs far less than wall time. Python 3
# is in the sandbox because a local sandbox binds the host's /usr (as the bench needs it anyway).
_TIMER = """import json, os, resource, subprocess, sys, time
steps, out = json.loads(sys.argv[1]), {}
for name, env, argv in steps:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env={**os.environ, **env})
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{name} exited {done.returncode}")
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    out[name] = [wall, cpu]
print("kg-steps " + json.dumps(out))
"""


class CaptureFailed(RuntimeError):
    pass


def timer_command(directory, steps, after=""):
    """A shell command that runs `steps` [(name, env dict, argv list)] in `directory`, timed
    (see _TIMER), then `after` (not timed)."""
    command = (f"cd {shlex.quote(directory)} && python3 -c {shlex.quote(_TIMER)} "
               f"{shlex.quote(json.dumps(steps))}")
    return f"{command} && {after}" if after else command


def parse_steps(stdout):
    """{name: (wall ms, CPU ms)} from a timer_command's output."""
    for line in stdout.splitlines():
        if line.startswith("kg-steps "):
            return {name: tuple(values) for name, values in json.loads(line[9:]).items()}
    raise CaptureFailed(f"the timed steps printed no times: {stdout[-300:]!r}")


def _argv(line, work):
    """A -x command line as (env, argv): $WORK expanded, shell quotes removed, leading
    NAME=value words (such as GOROOT='') as the environment."""
    words = shlex.split(line.replace("$WORK", work))
    env = {}
    while words and "=" in words[0] and not words[0].startswith(("-", "/")):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, words


# How kode-gopher-fastbuild runs the tools beside go build's flags (sandbox/fastbuild/tools.go):
# the user's package compiled without DWARF (the link drops it: -w), and the collector held off
# up to a quarter of the build's memory limit (the daemon's default [limits] memory_bytes, 4 GiB,
# which the bench's daemons keep).
FAST_PATH_COMPILE_FLAGS = ["-dwarf=false"]
FAST_PATH_ENV = {"GOGC": "off", "GOMEMLIMIT": str((4 << 30) // 4)}


def compile_link_command(x_log, fast_path_flags=False):
    """The command that reruns, timed, the main package's compile and the link of a `go build
    -x -work` log with its flags and the importcfg files -work kept, then removes the work
    folder. Its output parses with parse_steps into {"compile": .., "link": ..}; with
    fast_path_flags, then also {"compile_fast": .., "link_fast": ..}: the same two with the
    fast path's flags and environment. Raises CaptureFailed when the log has no compile of
    package main (the package came from the cache: the caller must edit the program before
    capturing)."""
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
    steps = [("compile", *_argv(compile_line, work)), ("link", *_argv(link_line, work))]
    if fast_path_flags:
        compile_env, compile_argv = _argv(compile_line, work)
        link_env, link_argv = _argv(link_line, work)
        steps += [("compile_fast", {**compile_env, **FAST_PATH_ENV},
                   compile_argv[:1] + FAST_PATH_COMPILE_FLAGS + compile_argv[1:]),
                  ("link_fast", {**link_env, **FAST_PATH_ENV}, link_argv)]
    return timer_command(directory, steps, after=f"rm -rf {shlex.quote(work)}")


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
