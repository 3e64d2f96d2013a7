// The stdio shim's SessionBackend (session_backend.hpp), its one link to kode-gopherd: the daemon connection (found, or started, on the
// first tool call that needs it) and the one daemon session of this MCP connection (opened with
// client "mcp" on the first call that runs something, closed when the server stops). It keeps
// nothing else: results go straight back to the client.
//
// Threads: execute / package_docs / auth_status run on the tool-call worker, one at a time,
// plugins on any thread;
// cancel_running_call comes from the reading thread while one of them runs; close_session runs
// on the main thread after the worker has stopped.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "daemon_connection.hpp"
#include "global_options.hpp"
#include "logger.hpp"
#include "request_canceller.hpp"
#include "session_backend.hpp"

namespace kg::mcp {

class DaemonSessionLink final : public SessionBackend {
 public:
  DaemonSessionLink(kg::cli::GlobalOptions globals, log::Logger& logger);
  DaemonSessionLink(const DaemonSessionLink&) = delete;
  DaemonSessionLink& operator=(const DaemonSessionLink&) = delete;

  // POST /v1/sessions/{id}/execute, streamed: on_phase gets each progress line, the return
  // value is the ExecuteResult. A session the daemon no longer knows (404, 409 session_closed) is
  // replaced once by a new one before the call is retried. Throws kg::cli::DaemonApiError (the
  // daemon refused the call, including code "cancelled"), kg::cli::DaemonUnavailableError,
  // kg::config::ConfigError, kg::net::HttpTransportError.
  wire::daemon_api::ExecuteResult execute(const wire::daemon_api::ExecuteRequest& request,
                                          const PhaseHandler& on_phase,
                                          const OutputHandler& on_output) override;

  // POST /v1/sessions/{id}/docs with {"package", "symbol"?}; the same errors as execute.
  wire::daemon_api::DocsAnswer package_docs(const wire::daemon_api::DocsRequest& request) override;

  // GET /v1/plugins (needs no session), on a connection of its own: any thread.
  wire::daemon_api::PluginsListing plugins() override;
  // GET /v1/auth: the identity programs run as (needs no session).
  wire::daemon_api::AuthStatus auth_status() override;

  // GET /v1/sessions/{id}/calls/{call}/files/{name} for a uri of this connection's own session
  // (else not_found, before the daemon is asked), and GET /v1/sessions/{id}/files
  // (daemon_resource_reads.cpp). On the reading thread; throw kg::cli::DaemonApiError and
  // kg::net::HttpTransportError.
  ResourceBytes read_resource(std::string_view uri) override;
  std::vector<wire::daemon_api::OutFile> list_resources() override;

  // Forgets an earlier cancellation; the worker calls it before it takes the next call.
  void prepare_for_next_call() noexcept override { canceller_.reset(); }

  // Stops the call in flight: asks the daemon to cancel it, and, when the daemon cannot (no
  // call there yet, or no answer), cuts this side's request off. Any thread; never throws.
  void cancel_running_call() noexcept override;

  // DELETE the session, if one was opened. Never throws (logs instead).
  void close_session() noexcept override;

 private:
  const kg::cli::DaemonConnection& connection();
  std::string session_id();
  std::string open_session();
  // Runs `request`; when the daemon no longer listens, connects again (starting a daemon when
  // needed, as every CLI command does) and runs it once more.
  rapidjson::Document reconnecting(const std::function<rapidjson::Document()>& request);
  // Runs `request` in the session, replacing a session the daemon lost and trying once more.
  rapidjson::Document in_session(
      const std::function<rapidjson::Document(const std::string& session_id)>& request);
  std::chrono::milliseconds execute_wait() const;
  std::pair<std::string, std::string> socket_and_session() const;  // under mutex_

  kg::cli::GlobalOptions globals_;
  log::Logger& logger_;
  std::optional<kg::cli::DaemonConnection> connection_;  // worker thread only
  mutable std::mutex mutex_;  // guards socket_path_ and session_id_ (read by cancel_running_call)
  std::string socket_path_;
  std::string session_id_;
  kg::net::RequestCanceller canceller_;
};

}  // namespace kg::mcp
