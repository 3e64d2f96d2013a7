// The subcommands of `kode-gopher`, one file each. Each add_*_command adds its CLI11
// subcommand to `app`; when the user picks it, its callback stores in `action` the work to run
// after parsing (see run_cli). The pure parts the tests check are declared here as well.
// Main thread.
#pragma once

#include "daemon_api/auth_status.hpp"
#include "daemon_api/package_docs.hpp"
#include "daemon_api/plugins_listing.hpp"
#include "daemon_api/session_api_calls.hpp"
#include "daemon_api/sessions_listing.hpp"
#include "daemon_api/stats.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/App.hpp>
#include <rapidjson/document.h>

#include "daemon_api/execute_request.hpp"
#include "global_options.hpp"
#include "program_collector.hpp"

namespace kg::cli {

// exec_command.cpp
struct ExecOptions {
  std::string target;                      // FILE, DIR or "-"
  bool json = false;                       // print the ExecuteResult JSON
  // --stream / --no-stream: live output (live_output.hpp); nullopt: on when stdout is a terminal
  std::optional<bool> stream;
  std::string runtime;                     // empty: the daemon's default
  std::optional<std::uint32_t> timeout_ms;  // run-phase wall clock
  std::string session_id;                  // empty: a one-shot session
  // --read-only, --project, --bucket: the call's "api_policy" (docs/api-policy.md)
  bool read_only = false;
  std::vector<std::string> projects;
  std::vector<std::string> buckets;
  // --test, --vet: the call's "action" (go test, go vet instead of running; docs/runtimes.md)
  bool test = false;
  bool vet = false;
  // --out DIR: save the files the program left under /app/out there (out_files_saver.hpp).
  std::string out_dir;
};
void add_exec_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// The ExecuteRequest JSON for `files` (docs/daemon-api.md), with "client":"cli" for one-shots.
std::string execute_request_body(const ProgramFiles& files, const ExecOptions& options);
// The call's "api_policy" from --read-only, --project and --bucket (empty: none given).
wire::daemon_api::ExecuteApiPolicy api_policy_of(const ExecOptions& options);
// "/v1/execute", or "/v1/sessions/<id>/execute" with --session.
std::string execute_target(const ExecOptions& options);

// sessions_command.cpp
void add_sessions_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// The table of a GET /v1/sessions answer, or "no open sessions" / "no sessions" (with --all).
std::string render_sessions(const wire::daemon_api::SessionsListing& listing, bool all);

// api_calls_command.cpp: `api-calls SESSION [--json]` (GET /v1/sessions/{id}/api_calls).
void add_api_calls_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// The counts, then a table of the requests listed and the refusals' messages.
std::string render_session_api_calls(const wire::daemon_api::SessionApiCalls& answer);

// stats_command.cpp
void add_stats_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// The counts and the timing table of a GET /v1/stats answer.
std::string render_stats(const wire::daemon_api::Stats& stats);

// auth_command.cpp: `auth status [--json]` (GET /v1/auth).
void add_auth_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
std::string render_auth_status(const wire::daemon_api::AuthStatus& status);

// plugins_command.cpp
void add_plugins_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
std::string render_plugins(const wire::daemon_api::PluginsListing& listing);

// docs_command.cpp: `docs PACKAGE [SYMBOL] [--json] [--session ID]`
// (POST /v1/sessions/{id}/docs).
void add_docs_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// The answer's docs, ending in one newline.
std::string render_docs(const wire::daemon_api::DocsAnswer& answer);

// config_command.cpp: `config check [FILE]`.
void add_config_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// Checks `file` (else --config, else the default path) and prints the verdict to `out`.
int run_config_check(const GlobalOptions& globals, const std::string& file, std::ostream& out);

// daemon_command.cpp: replaces the process with kode-gopherd.
// `kode-gopher [global options] daemon ARGS...` hands ARGS to kode-gopherd untouched, so the
// command line is cut after `daemon` before CLI11 parses it: parsed_argc is what CLI11 gets.
struct DaemonCommandLine {
  int parsed_argc;
  std::vector<std::string> passed_arguments;
};
DaemonCommandLine split_daemon_command_line(int argc, char** argv);
// Replaces this process with kode-gopherd (this invocation's --config and --socket, then
// `arguments`). Returns only by throwing DaemonUnavailableError.
int exec_daemon(const GlobalOptions& globals, const std::vector<std::string>& arguments);
void add_daemon_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action,
                        std::vector<std::string> passed_arguments);

// serve_command.cpp: the MCP stdio server (cli/mcp/, docs/mcp.md).
void add_serve_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);

// prompt_command.cpp: prints the agent's system prompt (the MCP prompt of `serve`).
void add_prompt_command(CLI::App& app, CommandAction& action);

}  // namespace kg::cli
