// The one place exit codes come from: each status, each daemon error code, each exception type.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "cli_errors.hpp"
#include "daemon_client.hpp"
#include "daemon_config.hpp"
#include "exit_codes.hpp"
#include "malformed_message.hpp"
#include "json_text.hpp"
#include "unix_http_client.hpp"

using kg::cli::ExitCode;
using kg::cli::exit_code_for_daemon_error;
using kg::cli::exit_code_for_exception;
using kg::cli::exit_code_for_result;
using kg::cli::parse_json;

namespace {

// The answer as the CLI reads it: parsed, then decoded with the daemon API's codec.
ExitCode for_result(const std::string& json) {
  return exit_code_for_result(
      kg::wire::daemon_api::decode_execute_result(parse_json(json, "test input")));
}

ExitCode for_status(const std::string& status) {
  return for_result(R"({"status": ")" + status + R"(", "exit_code": 1, "is_error": true})");
}

template <typename Exception>
ExitCode for_thrown(const Exception& error) {
  try {
    throw error;
  } catch (...) {
    return exit_code_for_exception(std::current_exception());
  }
}

}  // namespace

TEST_CASE("the exit codes keep their documented numbers") {
  CHECK(to_int(ExitCode::ok) == 0);
  CHECK(to_int(ExitCode::program_failed) == 1);
  CHECK(to_int(ExitCode::compile_error) == 2);
  CHECK(to_int(ExitCode::timeout) == 3);
  CHECK(to_int(ExitCode::usage) == 64);
  CHECK(to_int(ExitCode::unavailable) == 69);
  CHECK(to_int(ExitCode::internal) == 70);
}

TEST_CASE("each status maps to its exit code") {
  CHECK(for_status("compile_error") == ExitCode::compile_error);
  CHECK(for_status("timeout") == ExitCode::timeout);
  CHECK(for_status("runtime_error") == ExitCode::program_failed);
  CHECK(for_status("panic") == ExitCode::program_failed);
  CHECK(for_status("killed") == ExitCode::program_failed);
  CHECK(for_status("oom") == ExitCode::program_failed);
  CHECK(for_status("output_limit") == ExitCode::program_failed);
  CHECK(for_status("internal") == ExitCode::internal);
  CHECK(for_status("sandbox_error") == ExitCode::unavailable);
  CHECK(for_status("something_new") == ExitCode::internal);
}

TEST_CASE("status ok exits 0 only when the result is not an error") {
  CHECK(for_result(R"({"status": "ok", "exit_code": 0, "is_error": false})") == ExitCode::ok);
  CHECK(for_result(R"({"status": "ok", "exit_code": 0, "is_error": true})") ==
        ExitCode::program_failed);
  // The daemon computes is_error (docs/contracts.md §3); the CLI goes by it.
  CHECK(for_result(R"({"status": "ok", "exit_code": 3, "is_error": true})") ==
        ExitCode::program_failed);
  // No status: an answer this CLI does not understand.
  CHECK(for_result(R"({"exit_code": 0})") == ExitCode::internal);
  // Not an answer at all: the codec refuses it, and the exception's exit code is internal.
  CHECK_THROWS_AS(for_result("[]"), kg::wire::MalformedMessage);
  CHECK(for_thrown(kg::wire::MalformedMessage("x")) == ExitCode::internal);
}

TEST_CASE("each daemon error code maps to its exit code") {
  CHECK(exit_code_for_daemon_error("bad_request", 400) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("invalid_input", 400) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("not_found", 404) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("session_closed", 409) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("payload_too_large", 413) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("runtime_unavailable", 503) == ExitCode::unavailable);
  CHECK(exit_code_for_daemon_error("credentials_unavailable", 503) == ExitCode::unavailable);
  CHECK(exit_code_for_daemon_error("queue_full", 503) == ExitCode::unavailable);
  CHECK(exit_code_for_daemon_error("sandbox_error", 502) == ExitCode::unavailable);
  CHECK(exit_code_for_daemon_error("internal", 500) == ExitCode::internal);
}

TEST_CASE("an unknown or missing daemon error code falls back to the HTTP status") {
  CHECK(exit_code_for_daemon_error("", 400) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("new_code", 422) == ExitCode::usage);
  CHECK(exit_code_for_daemon_error("", 502) == ExitCode::unavailable);
  CHECK(exit_code_for_daemon_error("", 503) == ExitCode::unavailable);
  CHECK(exit_code_for_daemon_error("", 500) == ExitCode::internal);
  CHECK(exit_code_for_daemon_error("", 302) == ExitCode::internal);
}

TEST_CASE("each exception type maps to its exit code, also when wrapped with context") {
  CHECK(for_thrown(kg::cli::UsageError("bad")) == ExitCode::usage);
  CHECK(for_thrown(kg::cli::DaemonUnavailableError("gone")) == ExitCode::unavailable);
  CHECK(for_thrown(kg::cli::DaemonApiError(503, "queue_full", "full")) == ExitCode::unavailable);
  CHECK(for_thrown(kg::cli::DaemonApiError(400, "invalid_input", "no main")) == ExitCode::usage);
  CHECK(for_thrown(kg::config::ConfigError("bad config", {})) == ExitCode::usage);
  CHECK(for_thrown(kg::net::HttpTransportError("broke off", false)) == ExitCode::unavailable);
  CHECK(for_thrown(std::runtime_error("bug")) == ExitCode::internal);
  CHECK(for_thrown(42) == ExitCode::internal);

  ExitCode wrapped = ExitCode::ok;
  try {
    try {
      throw kg::cli::DaemonApiError(502, "sandbox_error", "bwrap failed");
    } catch (...) {
      std::throw_with_nested(std::runtime_error("Failed to run the program"));
    }
  } catch (...) {
    wrapped = exit_code_for_exception(std::current_exception());
  }
  CHECK(wrapped == ExitCode::unavailable);
}

TEST_CASE("config check exits 1 only with errors") {
  CHECK(kg::cli::exit_code_for_config_check(false) == ExitCode::ok);
  CHECK(kg::cli::exit_code_for_config_check(true) == ExitCode::program_failed);
}

TEST_CASE("the help footer documents every exit code") {
  const std::string help = kg::cli::exit_code_help();
  for (const char* code : {"  0 ", "  1 ", "  2 ", "  3 ", "  64 ", "  69 ", "  70 "}) {
    CHECK_MESSAGE(help.find(code) != std::string::npos, code);
  }
}

TEST_CASE("a daemon error body gives its code and message") {
  const kg::cli::DaemonApiError error = kg::cli::daemon_error_from_answer(
      400, R"({"error": {"code": "invalid_input", "message": "no root file: add main.go"}})");
  CHECK(error.http_status() == 400);
  CHECK(error.code() == "invalid_input");
  CHECK(std::string(error.what()) == "no root file: add main.go");
}

TEST_CASE("an unexpected error body is shown with the status and its first 200 bytes") {
  const kg::cli::DaemonApiError html =
      kg::cli::daemon_error_from_answer(502, "<html>Bad Gateway</html>");
  CHECK(html.code().empty());
  CHECK(std::string(html.what()) == "daemon answered HTTP 502: <html>Bad Gateway</html>");

  const kg::cli::DaemonApiError long_body =
      kg::cli::daemon_error_from_answer(500, std::string(150, 'a') + std::string(150, 'b'));
  CHECK(std::string(long_body.what()) ==
        "daemon answered HTTP 500: " + std::string(150, 'a') + std::string(50, 'b'));

  const kg::cli::DaemonApiError wrong_shape =
      kg::cli::daemon_error_from_answer(404, R"({"detail": "not here"})");
  CHECK(std::string(wrong_shape.what()) == R"(daemon answered HTTP 404: {"detail": "not here"})");
  CHECK(exit_code_for_daemon_error(wrong_shape.code(), wrong_shape.http_status()) ==
        ExitCode::usage);
}
