#include "daemon_session_link.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <iostream>

#include "cli_errors.hpp"
#include "daemon_binary_locator.hpp"
#include "daemon_binary_run.hpp"
#include "daemon_api/cancel_answer.hpp"
#include "daemon_api/open_session_request.hpp"
#include "daemon_api/sessions_listing.hpp"
#include "daemon_client.hpp"
#include "daemon_launcher.hpp"
#include "daemon_stream.hpp"
#include "error_chain.hpp"
#include "form_encoding.hpp"
#include "json_rpc.hpp"
#include "json_text.hpp"
#include "malformed_message.hpp"
#include "unix_http_stream.hpp"

namespace kg::mcp {
namespace {

bool session_is_gone(const kg::cli::DaemonApiError& error) {
  return error.code() == "not_found" || error.code() == "session_closed";
}

}  // namespace

DaemonSessionLink::DaemonSessionLink(kg::cli::GlobalOptions globals, log::Logger& logger)
    : globals_(std::move(globals)), logger_(logger) {}

const kg::cli::DaemonConnection& DaemonSessionLink::connection() {
  if (!connection_) {
    // connect_to_daemon reports a daemon start on this stream: stderr, never the protocol.
    connection_.emplace(kg::cli::connect_to_daemon(globals_, std::cerr));
    std::lock_guard lock(mutex_);
    socket_path_ = connection_->client.socket_path();
  }
  return *connection_;
}

std::string DaemonSessionLink::open_session() {
  // Opening may wait in the daemon's queue for a slot; the daemon ends that wait itself (with
  // queue_full after [daemon] queue_timeout_ms, at most an hour), so outwait its longest.
  const rapidjson::Document session = connection().client.post(
      "/v1/sessions", wire::daemon_api::encode_open_session_request({"mcp", ""}),
      std::chrono::minutes(61));
  std::string id;
  try {
    id = wire::daemon_api::decode_session(session).id;
  } catch (const wire::MalformedMessage& e) {
    throw std::runtime_error("The daemon's answer to POST /v1/sessions: " + std::string(e.what()) +
                             ": " + to_json(session));
  }
  logger_.log(log::LogLevel::info, "Opened daemon session " + id);
  std::lock_guard lock(mutex_);
  session_id_ = id;
  return id;
}

std::string DaemonSessionLink::session_id() {
  {
    std::lock_guard lock(mutex_);
    if (!session_id_.empty()) return session_id_;
  }
  return open_session();
}

rapidjson::Document DaemonSessionLink::reconnecting(
    const std::function<rapidjson::Document()>& request) {
  try {
    return request();
  } catch (const kg::net::HttpTransportError& e) {
    // Nobody listens any more: the daemon stopped. Find or start one again, with a new session;
    // the request never reached a daemon, so sending it again cannot run anything twice.
    if (!e.connect_failed() || !connection_) throw;
    logger_.log(log::LogLevel::warn, std::string("The daemon went away (") + e.what() +
                                            "); connecting again");
    // A daemon this server started is its child (the launcher forks once): reap it, or it
    // stays a zombie for as long as this server runs. This process has no other children.
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    connection_.reset();
    std::lock_guard lock(mutex_);
    socket_path_.clear();
    session_id_.clear();
  }
  return request();
}

rapidjson::Document DaemonSessionLink::in_session(
    const std::function<rapidjson::Document(const std::string& session_id)>& request) {
  return reconnecting([&] {
    const std::string first = session_id();
    try {
      return request(first);
    } catch (const kg::cli::DaemonApiError& e) {
      if (!session_is_gone(e)) throw;
      logger_.log(log::LogLevel::warn, "Daemon session " + first + " is gone (" + e.what() +
                                              "); opening a new one");
    }
    return request(open_session());
  });
}

std::chrono::milliseconds DaemonSessionLink::execute_wait() const {
  // The stream is silent during a build or a run: wait for the longest the config allows a
  // call to ask for, plus room for sandbox setup (the first call of a fresh install prewarms
  // for minutes).
  const auto& limits = connection_->config.limits;
  return std::chrono::milliseconds(limits.build_timeout_ms +
                                   std::max(limits.run_timeout_ms, limits.max_run_timeout_ms) +
                                   600'000);
}

wire::daemon_api::ExecuteResult DaemonSessionLink::execute(
    const wire::daemon_api::ExecuteRequest& request, const PhaseHandler& on_phase,
    const OutputHandler& on_output) {
  const std::string body = wire::daemon_api::encode_execute_request(request);
  const rapidjson::Document answer = in_session([&](const std::string& id) {
    const std::string target = "/v1/sessions/" + kg::net::percent_encode(id) + "/execute";
    kg::net::HttpRequestOptions options;
    options.timeout = execute_wait();
    options.canceller = &canceller_;
    return kg::cli::post_streamed(connection_->client.socket_path(), target, body, options,
                                  {on_phase, on_output});
  });
  return wire::daemon_api::decode_execute_result(answer);
}

wire::daemon_api::DocsAnswer DaemonSessionLink::package_docs(
    const wire::daemon_api::DocsRequest& request) {
  const std::string body = wire::daemon_api::encode_docs_request(request);
  return wire::daemon_api::decode_docs_answer(in_session([&](const std::string& id) {
    const std::string target = "/v1/sessions/" + kg::net::percent_encode(id) + "/docs";
    kg::net::HttpRequestOptions options;
    options.timeout = std::chrono::minutes(5);  // go doc in a sandbox that may still be starting
    options.canceller = &canceller_;
    const kg::net::HttpResponse response =
        kg::net::UnixHttpClient(connection_->client.socket_path())
            .request("POST", target, body, options);
    if (response.status < 200 || response.status > 299) {
      throw kg::cli::daemon_error_from_answer(response.status, response.body);
    }
    return kg::cli::parse_json(response.body, "The daemon's answer to POST " + target);
  }));
}

wire::daemon_api::PluginsListing DaemonSessionLink::plugins() {
  // Any thread (tools/list asks on the reading thread while a call may run on the worker): a
  // connection of its own, not the worker's. A running daemon says what it offers; without one
  // the daemon binary says what it would offer, from its plugins' descriptors, so that listing
  // the tools starts no daemon.
  const kg::cli::DaemonConnection own = kg::cli::open_daemon_connection(globals_, std::cerr);
  try {
    return wire::daemon_api::decode_plugins_listing(
        own.client.get("/v1/plugins", std::chrono::seconds(10)));
  } catch (const kg::net::HttpTransportError& e) {
    if (!e.connect_failed()) throw;
  }
  std::vector<std::string> arguments = kg::cli::daemon_arguments(globals_);
  arguments.emplace_back("--describe-runtimes");
  const kg::cli::DaemonBinaryOutput described = kg::cli::run_daemon_binary(
      kg::cli::find_daemon_binary(kg::cli::current_daemon_search_places()), arguments,
      /*merge_stderr=*/false);
  if (described.exit_code != 0) {
    throw kg::cli::DaemonUnavailableError(
        "kode-gopherd --describe-runtimes failed (exit " + std::to_string(described.exit_code) +
        "; its reason is on stderr above): `kode-gopher config check` reports what is wrong "
        "with the config");
  }
  return wire::daemon_api::decode_plugins_listing(
      kg::cli::parse_json(described.output, "kode-gopherd --describe-runtimes"));
}

wire::daemon_api::AuthStatus DaemonSessionLink::auth_status() {
  return wire::daemon_api::decode_auth_status(
      reconnecting([&] { return connection().client.get("/v1/auth"); }));
}

void DaemonSessionLink::cancel_running_call() noexcept {
  std::string socket_path;
  std::string id;
  {
    std::lock_guard lock(mutex_);
    socket_path = socket_path_;
    id = session_id_;
  }
  bool daemon_cancelled = false;
  if (!socket_path.empty() && !id.empty()) {
    try {
      const kg::cli::DaemonClient client(socket_path);
      const rapidjson::Document answer = client.post(
          "/v1/sessions/" + kg::net::percent_encode(id) + "/cancel", "", std::chrono::seconds(10));
      daemon_cancelled = wire::daemon_api::decode_cancel_answer(answer).cancelled;
    } catch (...) {
      logger_.log(log::LogLevel::warn,
                  "Cannot cancel the call in daemon session " + id + ": " +
                      kg::describe_error_chain(std::current_exception()));
    }
  }
  // The daemon answers the cancelled call itself; without that, stop waiting for it here.
  if (!daemon_cancelled) canceller_.cancel();
}

void DaemonSessionLink::close_session() noexcept {
  std::string id;
  {
    std::lock_guard lock(mutex_);
    id = session_id_;
    session_id_.clear();
  }
  if (id.empty() || !connection_) return;
  try {
    kg::net::UnixHttpClient http(connection_->client.socket_path());
    const kg::net::HttpResponse response =
        http.request("DELETE", "/v1/sessions/" + kg::net::percent_encode(id), {}, {});
    if (response.status < 200 || response.status > 299) {
      throw kg::cli::daemon_error_from_answer(response.status, response.body);
    }
    logger_.log(log::LogLevel::info, "Closed daemon session " + id);
  } catch (...) {
    logger_.log(log::LogLevel::warn, "Cannot close daemon session " + id + ": " +
                                            kg::describe_error_chain(std::current_exception()));
  }
}

}  // namespace kg::mcp
