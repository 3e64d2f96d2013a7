// The HTTP transport's SessionBackend: the daemon API (api_routes.hpp) called in this process
// with no socket in between, for one signed-in user. Requests and answers are the values of the
// daemon API's codecs (lib/wire/daemon_api/), with no JSON text either way. The session it opens belongs
// to that user (SessionOwner), so the user's calls run with the user's credentials, and no other
// MCP connection can name it: its id never leaves this object.
//
// Threads: as SessionBackend says (the worker, plus cancel from another thread).
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "api_context.hpp"
#include "session_backend.hpp"
#include "session_manager.hpp"

namespace kg::team {

// How gcp_auth_status describes a team user's identity (run_as = user); empty: the daemon's.
struct TeamIdentity {
  // run_as = user: calls use the user's own upstream token ([team] user_token_mode, sealed by
  // default: the sandbox holds a placeholder).
  bool own_token = false;
  std::string issuer;
};

class InProcessSessionBackend final : public mcp::SessionBackend {
 public:
  InProcessSessionBackend(api::ApiContext& api, session::SessionOwner owner, std::string client,
                          TeamIdentity identity);
  ~InProcessSessionBackend() override { close_session(); }

  // The API's execute for this user's session, on the values themselves: no JSON either way.
  wire::daemon_api::ExecuteResult execute(const wire::daemon_api::ExecuteRequest& request,
                                          const mcp::PhaseHandler& on_phase,
                                          const mcp::OutputHandler& on_output) override;
  wire::daemon_api::DocsAnswer package_docs(const wire::daemon_api::DocsRequest& request) override;
  wire::daemon_api::PluginsListing plugins() override;
  wire::daemon_api::AuthStatus auth_status() override;
  // Files of this connection's own session only, and only as its user (SessionManager checks
  // the owner too): another user's uri answers not_found, like one that never was.
  mcp::ResourceBytes read_resource(std::string_view uri) override;
  std::vector<wire::daemon_api::OutFile> list_resources() override;
  void prepare_for_next_call() noexcept override;
  void cancel_running_call() noexcept override;
  void close_session() noexcept override;

  const session::SessionOwner& owner() const noexcept { return owner_; }

 private:
  // The route's answer for this connection's session (opened on first use, and opened again once
  // when the daemon no longer has it). Throws BackendRefusedError for the API's errors.
  template <class Answer>
  Answer in_session(const std::function<Answer(const std::string& session_id)>& call);
  std::string session_id();
  void throw_if_cancelled();

  api::ApiContext& api_;
  session::SessionOwner owner_;
  std::string client_;
  TeamIdentity identity_;
  std::mutex mutex_;  // guards session_id_ and cancelled_
  std::string session_id_;
  bool cancelled_ = false;
};

}  // namespace kg::team
