// `kode-gopher exec FILE|DIR|-`: send a program to the daemon, print its result, exit with the
// code the result means (exit_codes.hpp). With live output (the default on a terminal, or
// --stream), the program's stdout and stderr are printed as it prints them, and not again with
// the result (live_output.hpp).
#include <unistd.h>

#include <iostream>
#include <optional>
#include <string>

#include "command_session.hpp"
#include "commands.hpp"
#include "daemon_api/api_policy_names.hpp"
#include "daemon_api/execute_request.hpp"
#include "daemon_connection.hpp"
#include "daemon_stream.hpp"
#include "exit_codes.hpp"
#include "form_encoding.hpp"
#include "unix_http_client.hpp"
#include "json_text.hpp"
#include "out_files_saver.hpp"
#include "live_output.hpp"
#include "result_renderer.hpp"

namespace kg::cli {
namespace {

// Headers arrive only when the program is done: wait for the longest build and run the config
// allows, plus room for queueing and sandbox setup.
std::chrono::milliseconds execute_wait(const kg::config::DaemonConfig& config,
                                       const ExecOptions& options) {
  const std::uint64_t run_ms = options.timeout_ms.value_or(config.limits.run_timeout_ms);
  return std::chrono::milliseconds(config.limits.build_timeout_ms + run_ms + 300'000);
}

int run_exec(const GlobalOptions& globals, const ExecOptions& options) {
  const ProgramFiles files = options.target == "-" ? collect_program_from_stream(std::cin)
                                                   : collect_program(options.target);
  const std::string body = execute_request_body(files, options);
  // No /v1/health first: the request itself says whether a daemon listens (issue 27: the CLI
  // adds as little as it can to the call).
  const DaemonConnection connection = open_daemon_connection(globals, std::cerr);
  // --out needs the files after the call: a one-shot session would take them with it, so the
  // call runs in a session of its own, closed once they are saved.
  ExecOptions run_options = options;
  std::optional<CommandSession> own_session;
  if (!options.out_dir.empty() && options.session_id.empty()) {
    own_session.emplace(connection, globals, std::cerr);
    run_options.session_id = own_session->id();
  }
  // Live by default where a person watches: stdout is a terminal, and not --json.
  const bool live = options.stream.value_or(!options.json && ::isatty(STDOUT_FILENO) == 1);
  LiveOutput shown(std::cout, std::cerr);
  const rapidjson::Document answer = with_daemon(connection, globals, std::cerr, [&] {
    if (!live) {
      return connection.client.post(execute_target(run_options), body,
                                    execute_wait(connection.config, options));
    }
    kg::net::HttpRequestOptions request_options;
    request_options.timeout = execute_wait(connection.config, options);
    return post_streamed(connection.client.socket_path(), execute_target(run_options), body,
                         request_options,
                         {{}, [&](const mcp::ProgramOutput& output) { shown.show(output); }});
  });
  wire::daemon_api::ExecuteResult result = wire::daemon_api::decode_execute_result(answer);
  if (options.json) {
    std::cout << pretty_json(answer) << '\n';  // the daemon's whole answer, as it sent it
  } else {
    // Shown once: the text leaves out what was printed live.
    if (live && shown.complete()) drop_shown_output(result);
    std::cout << render_execute_result(result);
  }
  std::cout.flush();
  if (!options.out_dir.empty()) {
    save_out_files(connection.client.socket_path(), result.files, options.out_dir, std::cerr);
  }
  return to_int(exit_code_for_result(result));
}

}  // namespace

wire::daemon_api::ExecuteApiPolicy api_policy_of(const ExecOptions& options) {
  wire::daemon_api::ExecuteApiPolicy policy;
  if (options.read_only) policy.read_only = true;
  if (!options.projects.empty()) policy.projects = options.projects;
  if (!options.buckets.empty()) policy.buckets = options.buckets;
  return policy;
}

std::string execute_request_body(const ProgramFiles& files, const ExecOptions& options) {
  wire::daemon_api::ExecuteRequest request;
  request.files.assign(files.begin(), files.end());
  if (!options.runtime.empty()) request.runtime = options.runtime;
  request.timeout_ms = options.timeout_ms;
  if (options.session_id.empty()) request.client = "cli";
  request.api_policy = api_policy_of(options);
  if (options.test) request.action = "test";
  if (options.vet) request.action = "vet";
  return wire::daemon_api::encode_execute_request(request);
}

std::string execute_target(const ExecOptions& options) {
  if (options.session_id.empty()) return "/v1/execute";
  return "/v1/sessions/" + net::percent_encode(options.session_id) + "/execute";
}

void add_exec_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto options = std::make_shared<ExecOptions>();
  auto timeout = std::make_shared<std::uint32_t>(0);
  CLI::App* exec = app.add_subcommand(
      "exec", "Run a Go program: a .go file, a directory (its *.go, go.mod, go.sum), or - for "
              "main.go on standard input");
  exec->add_option("program", options->target, "FILE, DIR or -")->required()->type_name(
      "FILE|DIR|-");
  exec->add_flag("--json", options->json, "Print the daemon's result JSON instead of text");
  // The daemon's plugins say which runtimes there are (`kode-gopher plugins`); a name none offers
  // is refused by the daemon with the list.
  exec->add_flag_function(
      "--stream,!--no-stream", [options](std::int64_t count) { options->stream = count > 0; },
      "Print the program's stdout and stderr as it prints them, and not again in the text "
      "result (default: on when stdout is a terminal and without --json)");
  exec->add_option("--runtime", options->runtime,
                   "Runtime: a name the daemon's plugins offer, or auto (`kode-gopher plugins` "
                   "lists them); default: the config's runtime.default")
      ->type_name("NAME");
  CLI::Option* timeout_option =
      exec->add_option("--timeout,--timeout-ms", *timeout,
                       "Run-phase wall clock in milliseconds for this call (default: the config's "
                      "limits.run_timeout_ms; at most limits.max_run_timeout_ms)")
          ->type_name("DURATION_MS")
          ->check(CLI::Range(1u, 3'600'000u));
  CLI::Option* test_flag = exec->add_flag(
      "--test", options->test,
      "Run the program's tests (its *_test.go files) with go test instead of running it: one "
      "line per failed or skipped test, then the passed ones; needs compiled-go (auto picks it)");
  exec->add_flag("--vet", options->vet,
                 "Check the program with go vet instead of running it: its findings come back as "
                 "diagnostics; needs compiled-go (auto picks it)")
      ->excludes(test_flag);
  exec->add_option("--session", options->session_id,
                   "Run in this open session (see `kode-gopher sessions`)")
      ->type_name("ID");
  exec->add_option("--out", options->out_dir,
                   "Save the files the program writes under /app/out into DIR (made when "
                   "missing); without it they are only listed")
      ->type_name("DIR");
  exec->add_flag("--read-only", options->read_only,
                 "Google API requests may only read (docs/api-policy.md lists what counts as a "
                 "read); needs [sandbox] network = allowlist");
  const auto name_check = [](auto problem_of) {
    return CLI::Validator(
        [problem_of](const std::string& name) -> std::string {
          auto problem = problem_of(name);
          return problem ? *problem : "";
        },
        "");
  };
  exec->add_option("--project", options->projects,
                   "Google API requests may name only this project (repeat for more; within "
                   "the daemon's [api_policy] projects)")
      ->check(name_check(wire::daemon_api::project_name_problem))
      ->type_name("PROJECT");
  exec->add_option("--bucket", options->buckets,
                   "Storage requests may name only this bucket (repeat for more; within the "
                   "daemon's [api_policy] buckets)")
      ->check(name_check(wire::daemon_api::bucket_name_problem))
      ->type_name("BUCKET");
  exec->callback([&globals, &action, options, timeout, timeout_option] {
    if (timeout_option->count() > 0) options->timeout_ms = *timeout;
    action = [&globals, options] { return run_exec(globals, *options); };
  });
}

}  // namespace kg::cli
