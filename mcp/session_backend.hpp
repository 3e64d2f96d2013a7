// What the MCP tools run against: the daemon, seen as one session that belongs to one MCP
// connection. Two implementations: the stdio shim's DaemonSessionLink (cli/mcp/, the daemon API
// over its Unix socket) and the HTTP transport's InProcessSessionBackend (daemon/team/http/, the
// same API called in the daemon's own process, for the signed-in user). Both speak the daemon
// API (docs/daemon-api.md): execute's request and answer as the values of their codecs
// (lib/wire/daemon_api/), which only the socket link turns into text, and the other answers as
// its JSON, so the tools are one implementation for both.
//
// Threads: execute / package_docs / auth_status run on the tool-call worker, one at a time;
// plugins on any thread (tools/list asks for the runtimes on the reading thread);
// cancel_running_call comes from another thread while one of them runs; close_session runs
// after the worker has stopped.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "daemon_api/auth_status.hpp"
#include "daemon_api/execute_request.hpp"
#include "daemon_api/execute_result.hpp"
#include "daemon_api/package_docs.hpp"
#include "daemon_api/plugins_listing.hpp"
#include "program_output.hpp"

namespace kg::mcp {

using PhaseHandler = std::function<void(std::string_view phase, std::string_view detail)>;

// The daemon answered with an error (its error JSON's code and message): the call was refused
// or failed in a way the caller can act on. The CLI's DaemonApiError is one.
class BackendRefusedError : public std::runtime_error {
 public:
  BackendRefusedError(int http_status, std::string code, const std::string& message)
      : std::runtime_error(message), http_status_(http_status), code_(std::move(code)) {}
  int http_status() const noexcept { return http_status_; }
  // The error JSON's code; empty when the answer was not the documented error JSON.
  const std::string& code() const noexcept { return code_; }

 private:
  int http_status_;
  std::string code_;
};

// The daemon cannot be reached, found or started. The CLI's DaemonUnavailableError is one.
class BackendUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file a program left under /app/out, as resources/read serves it.
struct ResourceBytes {
  std::string content;
  std::string media_type;
};

class SessionBackend {
 public:
  virtual ~SessionBackend() = default;

  // Runs an execute request (POST /v1/sessions/{id}/execute) in this connection's session,
  // opened on first use; on_phase hears each phase boundary and on_output the program's output
  // as it is printed (may be empty). Returns the ExecuteResult. Throws BackendRefusedError (code
  // "cancelled" when cancel_running_call stopped it), BackendUnavailableError, or a transport
  // error.
  virtual wire::daemon_api::ExecuteResult execute(const wire::daemon_api::ExecuteRequest& request,
                                                  const PhaseHandler& on_phase,
                                                  const OutputHandler& on_output) = 0;
  // POST /v1/sessions/{id}/docs; the same errors as execute.
  virtual wire::daemon_api::DocsAnswer package_docs(const wire::daemon_api::DocsRequest& request) = 0;
  // GET /v1/plugins (needs no session). Any thread.
  virtual wire::daemon_api::PluginsListing plugins() = 0;
  // GET /v1/auth: the identity this connection's programs run as (needs no session).
  virtual wire::daemon_api::AuthStatus auth_status() = 0;

  // The file a kode-gopher://sessions/… uri (a result's `files`) names, read only within this
  // connection's own session (GET /v1/sessions/{id}/calls/{call}/files/{name}): another
  // session's or user's uri is a BackendRefusedError with code not_found. The default has no
  // files at all.
  virtual ResourceBytes read_resource(std::string_view uri) {
    throw BackendRefusedError(404, "not_found", "No resource " + std::string(uri));
  }
  // GET /v1/sessions/{id}/files: the files of this connection's session (none before it has one).
  virtual std::vector<wire::daemon_api::OutFile> list_resources() { return {}; }

  // Forgets an earlier cancellation; the worker calls it before it takes the next call.
  virtual void prepare_for_next_call() noexcept = 0;
  // Stops the call in flight, if any. Any thread; never throws.
  virtual void cancel_running_call() noexcept = 0;
  // Closes the session, if one was opened. Never throws (logs instead).
  virtual void close_session() noexcept = 0;
};

}  // namespace kg::mcp
