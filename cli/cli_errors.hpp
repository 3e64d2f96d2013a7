// The exceptions the CLI's commands throw for failures that have their own exit code. Thrown on
// the main thread by the commands and caught only in run_cli, which turns them into an exit
// code through exit_codes.hpp (the one place that maps failures to exit codes).
#pragma once

#include <stdexcept>
#include <string>

namespace kg::cli {

// The command line or the input it names is not acceptable (exit 64).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The daemon cannot be reached, found or started (exit 69).
class DaemonUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The daemon answered a request with a non-2xx status. what() is the message to show the user
// (the body's error.message, or a description of the unexpected body); code() is the body's
// error.code, empty when the body was not the documented error JSON.
class DaemonApiError : public std::runtime_error {
 public:
  DaemonApiError(int http_status, std::string code, const std::string& message)
      : std::runtime_error(message), http_status_(http_status), code_(std::move(code)) {}
  int http_status() const noexcept { return http_status_; }
  const std::string& code() const noexcept { return code_; }

 private:
  int http_status_;
  std::string code_;
};

}  // namespace kg::cli
