#include "exit_codes.hpp"

#include "cli_errors.hpp"
#include "daemon_config.hpp"
#include "unix_http_client.hpp"

namespace kg::cli {

ExitCode exit_code_for_result(const wire::daemon_api::ExecuteResult& execute_result) {
  const std::string& status = execute_result.status;
  if (status == "ok") return execute_result.is_error ? ExitCode::program_failed : ExitCode::ok;
  if (status == "compile_error") return ExitCode::compile_error;
  if (status == "timeout") return ExitCode::timeout;
  if (status == "runtime_error" || status == "panic" || status == "killed" || status == "oom" ||
      status == "output_limit" || status == "test_failed" || status == "vet_findings") {
    return ExitCode::program_failed;
  }
  if (status == "sandbox_error" || status == "runtime_unavailable" || status == "queue_full") {
    return ExitCode::unavailable;
  }
  return ExitCode::internal;  // "internal", or a status this CLI does not know
}

ExitCode exit_code_for_daemon_error(std::string_view code, int http_status) {
  if (code == "bad_request" || code == "invalid_input" || code == "not_found" ||
      code == "session_closed" || code == "payload_too_large") {
    return ExitCode::usage;
  }
  if (code == "runtime_unavailable" || code == "queue_full" || code == "sandbox_error" ||
      code == "credentials_unavailable") {
    return ExitCode::unavailable;
  }
  if (code == "internal") return ExitCode::internal;
  if (http_status >= 400 && http_status < 500) return ExitCode::usage;
  if (http_status == 502 || http_status == 503) return ExitCode::unavailable;
  return ExitCode::internal;
}

ExitCode exit_code_for_exception(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
    return ExitCode::ok;
  } catch (const DaemonApiError& e) {
    return exit_code_for_daemon_error(e.code(), e.http_status());
  } catch (const UsageError&) {
    return ExitCode::usage;
  } catch (const kg::config::ConfigError&) {
    return ExitCode::usage;
  } catch (const DaemonUnavailableError&) {
    return ExitCode::unavailable;
  } catch (const kg::net::HttpTransportError&) {
    return ExitCode::unavailable;
  } catch (const std::exception& e) {
    // Context added on the way up (std::throw_with_nested) keeps the cause's exit code.
    try {
      std::rethrow_if_nested(e);
    } catch (...) {
      return exit_code_for_exception(std::current_exception());
    }
    return ExitCode::internal;
  } catch (...) {
    return ExitCode::internal;
  }
}

ExitCode exit_code_for_config_check(bool has_errors) {
  return has_errors ? ExitCode::program_failed : ExitCode::ok;
}

std::string exit_code_help() {
  return "Exit codes:\n"
         "  0   the program ran and succeeded\n"
         "  1   the program failed (runtime error, panic, killed, out of memory, output limit,\n"
         "      non-zero exit, or a result that is not ok)\n"
         "  2   the program did not compile\n"
         "  3   the program timed out\n"
         "  64  bad command line or unacceptable input (including the daemon's 4xx errors)\n"
         "  69  the daemon or its sandbox is unavailable (unreachable, sandbox_error,\n"
         "      runtime_unavailable, queue_full, credentials_unavailable)\n"
         "  70  internal error in kode-gopher\n"
         "`config check` exits 1 when the file has errors and 0 when it has only warnings.\n"
         "`auth status` exits 1 when programs get no working Google credentials.";
}

}  // namespace kg::cli
