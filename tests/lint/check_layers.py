#!/usr/bin/env python3
"""Fails when a folder links a layer it may not use (docs/architecture.md, "Who may use what").

The rule is read from the meson.build files, where every arrow between folders is declared: a
folder's targets may name only the dependencies its layer allows: lib/ uses nothing of the
project, sandbox/server only lib/, mcp/ only lib/, config/ only lib/, cli/ only lib/, mcp/ and
config/, plugins/ only
plugin_api/, lib/ and the plugins' own shared libraries. Any other *_dep a meson.build in those
folders names fails this test, unless KNOWN_EXCEPTIONS lists it; an exception no longer used
fails it too, so the table shrinks as the layering is finished. A sandbox provider's dependency
named under daemon/team/, and daemon/gocache's or the session layer's named under
daemon/sandbox/, fail it as well (FORBIDDEN).

Usage: check_layers.py SOURCE_ROOT
"""
import pathlib
import re
import sys

# Dependencies that are not the project's own folders: system libraries and test frameworks.
EXTERNAL = {"rapidjson_dep", "poco_dep", "poco_time_dep", "poco_oauth_dep", "poco_ssl_dep",
            "poco_netssl_dep", "openssl_dep", "threads_dep", "libarchive_dep", "sqlite_dep", "yaml_dep",
            "cli11_dep", "doctest_dep", "seccomp_dep", "dl_dep"}

# Layer -> the project dependencies its meson.build files may name (their own included).
LIB = {"json_dep", "time_dep", "error_dep", "net_dep", "https_client_dep", "codec_dep", "log_dep",
       "log_interface_dep", "metrics_dep", "ini_dep", "sandbox_api_wire_dep", "daemon_api_wire_dep"}
ALLOWED = {
    "lib": LIB,
    "sandbox/server": LIB,
    "mcp": LIB,
    # config/ is the config file (keys, defaults, reading, checks): the daemon's settings, and
    # where the CLI finds the daemon and how long it waits for a call.
    "config": LIB,
    "cli": LIB | {"mcp_dep", "config_dep"},
    "plugins": LIB | {"plugin_api_dep", "go_program_core_dep", "google_oauth_dep",
                      "creds_adc_core_dep", "creds_workload_core_dep", "yaegi_core_dep",
                      "compiled_go_core_dep"},
}

# (meson.build, dependency) -> why it is still there. Each is a layering step not yet done
# (docs/architecture.md, "Who may use what").
KNOWN_EXCEPTIONS = {
}

# Folder -> (project dependencies its meson.build files must not name, why). Team mode works with
# any sandbox provider, so it names none (its address check is lib/net's address policy). The
# sandbox providers know nothing of Go: what only Go runtimes need (binary cache, tidy, docs) is
# daemon/gocache's, reached through host services, so no arrow runs from a provider up to it.
FORBIDDEN = {
    "daemon/team": ({"local_sandbox_dep", "kubernetes_sandbox_dep"},
                    "it names no concrete sandbox provider"),
    "daemon/sandbox": ({"gocache_dep", "session_dep"},
                       "a sandbox provider knows nothing of Go or of sessions"),
}

DEPENDENCY = re.compile(r"\b([a-z][a-z0-9_]*_dep)\b")
# Folders outside its own a layer may name in include_directories() or an #include "../..." path.
ALLOWED_PATHS = {"lib": ["lib"], "sandbox/server": ["sandbox/server", "lib"], "mcp": ["mcp", "lib"],
                 "config": ["config", "lib"], "cli": ["cli", "lib", "mcp", "config"], "plugins": ["plugins", "lib", "daemon/plugin_api"]}
QUOTED_PATH = re.compile(r"""['"]([^'"]*\.\.[^'"]*)['"]""")


def names_used(meson_text):
    """The *_dep names a meson.build uses (not the ones it declares with `x_dep =`)."""
    code = "\n".join(line.split("#", 1)[0] for line in meson_text.splitlines())
    declared = set(re.findall(r"^\s*([a-z][a-z0-9_]*_dep)\s*=", code, flags=re.M))
    return {name for name in DEPENDENCY.findall(code)} - declared, declared


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = []
    checked = 0
    exceptions_used = set()
    for layer, allowed in ALLOWED.items():
        for meson in sorted((root / layer).rglob("meson.build")):
            checked += 1
            used, declared = names_used(meson.read_text())
            for name in sorted(used - EXTERNAL - allowed - declared):
                key = (meson.relative_to(root).as_posix(), name)
                if key in KNOWN_EXCEPTIONS:
                    exceptions_used.add(key)
                    continue
                problems.append(f"{meson.relative_to(root)}: {layer}/ may not use {name} "
                                f"(allowed: {', '.join(sorted(allowed))})")
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in {".cpp", ".hpp", ".h"} and path.name != "meson.build":
                continue
            for line_number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if path.name == "meson.build" and "include_directories" not in line:
                    continue
                if path.name != "meson.build" and not line.lstrip().startswith("#include"):
                    continue
                for relative in QUOTED_PATH.findall(line):
                    target = (path.parent / relative).resolve()
                    inside = any(target.is_relative_to(root / allowed_path)
                                 for allowed_path in ALLOWED_PATHS[layer])
                    if not inside:
                        problems.append(f"{path.relative_to(root)}:{line_number}: {layer}/ may "
                                        f"not reach {target.relative_to(root)}")
    for meson, name in sorted(set(KNOWN_EXCEPTIONS) - exceptions_used):
        problems.append(f"{meson}: the known exception for {name} is no longer needed: remove it "
                        f"from KNOWN_EXCEPTIONS in tests/lint/check_layers.py")
    for folder, (forbidden, why) in FORBIDDEN.items():
        for meson in sorted((root / folder).rglob("meson.build")):
            used, _ = names_used(meson.read_text())
            for name in sorted(used & forbidden):
                problems.append(f"{meson.relative_to(root)}: {folder}/ may not use {name} ({why})")
    if checked < 5:
        sys.exit(f"only {checked} meson.build files under {root}: is that the source root?")
    if problems:
        print("A folder reaches a layer it may not use (docs/architecture.md):")
        print("\n".join(problems))
        sys.exit(1)
    print(f"{checked} meson.build files in {', '.join(ALLOWED)}: every dependency allowed")


if __name__ == "__main__":
    main()
