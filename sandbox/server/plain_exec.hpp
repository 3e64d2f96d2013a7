// A command that is one plain `exec /absolute/program word ...` needs no shell. It is what the
// daemon sends for every build and every run ("exec <kode-gopher-fastbuild> build ... ." and
// "exec <binary>"), and `sh -c` in front of it is a whole extra process start per command
// (~0.5-1 ms of CPU: bench/README.md, "Issue 27: the compiled floor"). The server then executes
// the program itself, as the shell would have: the same argv (every word passes through the
// shell unchanged: no quotes, expansions, globs, operators or comments), and the environment
// dash gives an exec'd program (only valid names, the last of duplicates, PWD exported). When
// that exec fails, the child executes `/bin/sh -c <command>` instead (command_exec.hpp), so a
// missing program, a script without `#!` or a denied one ends exactly as it does under the
// shell (its message, 127 or 126). Everything else about the command (its process group,
// rlimits, no_new_privs, cgroup, workdir) is the same either way. docs/sandbox-api.md says so.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::sandbox {

// The argv `sh -c command` would exec, when `command` is `exec` followed by an absolute program
// path and words made only of characters the shell passes unchanged ([A-Za-z0-9_./=:,+@%-]),
// separated by spaces; nullopt for anything else (the shell runs it).
std::optional<std::vector<std::string>> plain_exec_argv(std::string_view command);

// The environment dash hands the program it execs from `environment` ("NAME=value" entries):
// entries whose name is not a shell name dropped, one entry per name (the last value, where
// the first stood), and PWD exported: the given one when it is absolute and names `workdir`,
// else `workdir`'s physical path (what getcwd() would say).
std::vector<std::string> shell_exec_environment(const std::vector<std::string>& environment,
                                                const std::filesystem::path& workdir);

}  // namespace kg::sandbox
