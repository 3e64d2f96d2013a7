#include "in_process_backend.hpp"

#include "api_errors.hpp"
#include "api_routes.hpp"
#include "auth_status_json.hpp"
#include "call_files_routes.hpp"
#include "response_json.hpp"
#include "error_chain.hpp"
#include "json_rpc.hpp"
#include "session_errors.hpp"

namespace kg::team {
namespace {

class PhaseRelay final : public plugin::ProgressSink {
 public:
  explicit PhaseRelay(const mcp::PhaseHandler& on_phase) : on_phase_(on_phase) {}
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override {
    try {
      if (on_phase_) on_phase_(plugin::to_string(phase), detail);
    } catch (...) {
    }
  }

 private:
  const mcp::PhaseHandler& on_phase_;
};

// The program's output as the sandbox streams it, to the MCP tool.
class OutputRelay final : public sandbox::OutputSink {
 public:
  explicit OutputRelay(const mcp::OutputHandler& on_output) : on_output_(on_output) {}
  void printed(const wire::sandbox_api::OutputPiece& piece) noexcept override {
    relay({piece.is_stderr, piece.text, piece.cut, 0, {}});
  }
  void dropped(const wire::sandbox_api::OutputDropped& dropped) noexcept override {
    relay({false, {}, false, dropped.bytes, std::string(wire::sandbox_api::to_string(dropped.reason))});
  }

 private:
  void relay(const mcp::ProgramOutput& output) noexcept {
    try {
      if (on_output_) on_output_(output);
    } catch (...) {
    }
  }
  const mcp::OutputHandler& on_output_;
};

// The API's error for what a route or the session layer threw, as the tools' refusal.
mcp::BackendRefusedError refused(std::exception_ptr error) {
  const api::ApiError mapped = api::map_exception(error);
  return mcp::BackendRefusedError(mapped.status, mapped.code, mapped.message);
}

bool session_gone(const std::string& code) {
  return code == "not_found" || code == "session_closed";
}

}  // namespace

InProcessSessionBackend::InProcessSessionBackend(api::ApiContext& api,
                                                 session::SessionOwner owner, std::string client,
                                                 TeamIdentity identity)
    : api_(api), owner_(std::move(owner)), client_(std::move(client)), identity_(std::move(identity)) {}

std::string InProcessSessionBackend::session_id() {
  {
    std::lock_guard lock(mutex_);
    if (!session_id_.empty()) return session_id_;
  }
  std::string id;
  try {
    // A cancelled call (its client left, its MCP session closed, the daemon stopping) stops
    // waiting for a session slot.
    session::SlotWait wait;
    wait.caller_gone = [this] {
      std::lock_guard lock(mutex_);
      return cancelled_;
    };
    id = api_.sessions.open(client_, "", wait, owner_).id;
  } catch (...) {
    throw refused(std::current_exception());
  }
  std::lock_guard lock(mutex_);
  session_id_ = id;
  if (cancelled_) throw mcp::BackendRefusedError(409, "cancelled", "The call was cancelled");
  return id;
}

template <class Answer>
Answer InProcessSessionBackend::in_session(
    const std::function<Answer(const std::string& session_id)>& call) {
  for (int attempt = 0;; ++attempt) {
    const std::string id = session_id();
    try {
      return call(id);
    } catch (const mcp::BackendRefusedError& e) {
      if (attempt > 0 || !session_gone(e.code())) throw;
      std::lock_guard lock(mutex_);
      if (session_id_ == id) session_id_.clear();  // the daemon lost it: open a new one
    }
  }
}

void InProcessSessionBackend::throw_if_cancelled() {
  std::lock_guard lock(mutex_);
  if (cancelled_) throw mcp::BackendRefusedError(409, "cancelled", "The call was cancelled");
}

wire::daemon_api::ExecuteResult InProcessSessionBackend::execute(
    const wire::daemon_api::ExecuteRequest& request, const mcp::PhaseHandler& on_phase,
    const mcp::OutputHandler& on_output) {
  throw_if_cancelled();
  PhaseRelay relay(on_phase);
  OutputRelay output(on_output);
  return in_session<wire::daemon_api::ExecuteResult>([&](const std::string& id) {
    try {
      return api::execute_in_session(api_, id, request, &relay, &output);
    } catch (...) {
      throw refused(std::current_exception());
    }
  });
}

wire::daemon_api::DocsAnswer InProcessSessionBackend::package_docs(
    const wire::daemon_api::DocsRequest& request) {
  throw_if_cancelled();
  return in_session<wire::daemon_api::DocsAnswer>([&](const std::string& id) {
    try {
      return api::package_docs(api_, id, request);
    } catch (...) {
      throw refused(std::current_exception());
    }
  });
}

wire::daemon_api::PluginsListing InProcessSessionBackend::plugins() {
  return api::plugins_listing(api_.plugins, api_.sessions.runtime_states(),
                              api_.sessions.limits());
}

wire::daemon_api::AuthStatus InProcessSessionBackend::auth_status() {
  return api::auth_status_message(
      identity_.own_token ? api_.credentials.owner_status(owner_.email, identity_.issuer)
                          : api_.credentials.status());
}

mcp::ResourceBytes InProcessSessionBackend::read_resource(std::string_view uri) {
  std::string own;
  {
    std::lock_guard lock(mutex_);
    own = session_id_;
  }
  session::OutFileAddress address;
  if (own.empty() || !session::parse_out_file_uri(uri, address) || address.session_id != own) {
    throw mcp::BackendRefusedError(404, "not_found",
                                   "No file " + std::string(uri) + " in this connection's session");
  }
  try {
    auto file = api_.sessions.call_file(own, owner_.id, address.call_id, address.name);
    return mcp::ResourceBytes{std::move(file.content), std::move(file.media_type)};
  } catch (...) {
    throw refused(std::current_exception());
  }
}

std::vector<wire::daemon_api::OutFile> InProcessSessionBackend::list_resources() {
  std::string own;
  {
    std::lock_guard lock(mutex_);
    own = session_id_;
  }
  std::vector<wire::daemon_api::OutFile> files;
  if (own.empty()) return files;
  try {
    for (const auto& file : api_.sessions.call_files(own, owner_.id)) {
      files.push_back(api::out_file_message(file));
    }
  } catch (...) {
    throw refused(std::current_exception());
  }
  return files;
}

void InProcessSessionBackend::prepare_for_next_call() noexcept {
  std::lock_guard lock(mutex_);
  cancelled_ = false;
}

void InProcessSessionBackend::cancel_running_call() noexcept {
  std::string id;
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    id = session_id_;
  }
  if (id.empty()) return;
  try {
    api_.sessions.cancel(id);
  } catch (...) {
    // Nothing running, or the session is gone: nothing to stop.
  }
}

void InProcessSessionBackend::close_session() noexcept {
  std::string id;
  {
    std::lock_guard lock(mutex_);
    id.swap(session_id_);
  }
  if (id.empty()) return;
  try {
    api_.sessions.close(id, "MCP session ended");
  } catch (...) {
    api_.logger.log(plugin::LogLevel::warn, "Closing session " + id + ": " +
                                                kg::describe_error_chain(std::current_exception()));
  }
}

}  // namespace kg::team
