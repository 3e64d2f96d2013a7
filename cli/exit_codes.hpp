// The CLI's exit codes and the one place that decides them: from an ExecuteResult, from a daemon
// error code, or from any exception a command lets escape. Called by run_cli and the commands on
// the main thread; every function here is pure.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "daemon_api/execute_result.hpp"

namespace kg::cli {

enum class ExitCode : int {
  ok = 0,              // the program ran and is_error is false
  program_failed = 1,  // runtime_error, panic, killed, oom, output_limit, or a result not ok
  compile_error = 2,
  timeout = 3,
  usage = 64,        // bad command line, unacceptable input, daemon 4xx errors
  unavailable = 69,  // daemon unreachable, sandbox_error, runtime_unavailable, queue_full
  internal = 70,     // a bug in kode-gopher (or an answer this CLI does not understand)
};

constexpr int to_int(ExitCode code) noexcept { return static_cast<int>(code); }

// From an ExecuteResult's status and is_error (docs/contracts.md §3; the daemon always sends it).
ExitCode exit_code_for_result(const wire::daemon_api::ExecuteResult& execute_result);

// From a daemon error body's error.code; when the code is empty or unknown, from the HTTP status.
ExitCode exit_code_for_daemon_error(std::string_view code, int http_status);

// From an exception a command let escape (UsageError, DaemonUnavailableError, DaemonApiError,
// kg::config::ConfigError, kg::net::HttpTransportError, anything else). A generic exception
// that wraps one of those (std::throw_with_nested) gets the wrapped one's code.
ExitCode exit_code_for_exception(std::exception_ptr error);

// `config check`: 1 when the file has errors, 0 when it has at most warnings.
ExitCode exit_code_for_config_check(bool has_errors);

// The "Exit codes:" paragraph of `kode-gopher --help`.
std::string exit_code_help();

}  // namespace kg::cli
