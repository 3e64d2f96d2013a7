// The exceptions the CLI's commands throw for failures that have their own exit code. Thrown on
// the main thread by the commands and caught only in run_cli, which turns them into an exit
// code through exit_codes.hpp (the one place that maps failures to exit codes).
#pragma once

#include <stdexcept>
#include <string>

#include "session_backend.hpp"

namespace kg::cli {

// The command line or the input it names is not acceptable (exit 64).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The daemon cannot be reached, found or started (exit 69).
// (An MCP tool's backend failure as well: the stdio shim's tools see it as one.)
class DaemonUnavailableError : public kg::mcp::BackendUnavailableError {
 public:
  using kg::mcp::BackendUnavailableError::BackendUnavailableError;
};

// The daemon answered a request with a non-2xx status. what() is the message to show the user
// (the body's error.message, or a description of the unexpected body); code() is the body's
// error.code, empty when the body was not the documented error JSON.
class DaemonApiError : public kg::mcp::BackendRefusedError {
 public:
  using kg::mcp::BackendRefusedError::BackendRefusedError;
};

}  // namespace kg::cli
