// The state SessionManager keeps for one open session. Private to daemon/session: shared by the
// files that implement SessionManager (session_manager.cpp, session_calls.cpp).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "local_sandbox.hpp"
#include "request_canceller.hpp"
#include "session_manager.hpp"

namespace kg::session {

struct SessionManager::Session {
  store::SessionRecord record;
  // The running sandbox's bubblewrap pid, for killing it from another thread at shutdown.
  std::atomic<pid_t> sandbox_pid{0};
  std::mutex call_mutex;  // one call at a time; guards sandbox and closed
  std::unique_ptr<sandbox::LocalSandbox> sandbox;
  bool closed = false;
  net::RequestCanceller canceller;  // stops the command of the running call
  std::atomic<bool> call_running{false};
};

}  // namespace kg::session
