// The state SessionManager keeps for one open session. Private to daemon/session: shared by the
// files that implement SessionManager (session_manager.cpp, session_calls.cpp).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "sandbox_provider.hpp"
#include "request_canceller.hpp"
#include "session_manager.hpp"

namespace kg::session {

struct SessionManager::Session {
  store::SessionRecord record;
  std::mutex call_mutex;  // one call at a time; guards sandbox and closed
  std::unique_ptr<sandbox::Sandbox> sandbox;
  bool closed = false;
  net::RequestCanceller canceller;  // stops the command of the running call
  std::atomic<bool> call_running{false};
  // auto: the last decline of the first runtime in this session, with what it pointed at
  // (session_calls.cpp); with call_mutex held. Never shared with another session.
  struct RememberedDecline {
    plugin::DeclineEvidence evidence;
    std::string reason;
  };
  std::optional<RememberedDecline> last_decline;

  // Replaces the sandbox (nullptr: releases it); with call_mutex held.
  void set_sandbox(std::unique_ptr<sandbox::Sandbox> next) {
    std::unique_ptr<sandbox::Sandbox> previous;
    {
      std::lock_guard lock(interrupt_mutex);
      previous = std::exchange(sandbox, std::move(next));
    }
    // Released outside the lock: a Kubernetes claim's delete takes a round trip.
  }
  // From any thread (shutdown): makes a call in flight on the sandbox fail now.
  void interrupt_sandbox() noexcept {
    std::lock_guard lock(interrupt_mutex);
    if (sandbox) sandbox->interrupt();
  }

 private:
  std::mutex interrupt_mutex;  // guards `sandbox` against interrupt_sandbox()'s reads
};

}  // namespace kg::session
