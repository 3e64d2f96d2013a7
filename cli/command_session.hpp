// A session a single CLI command opens for itself and closes when it is done: `exec --out`
// (its files outlive a one-shot call only in a session) and `docs` (the daemon looks docs up in
// a session's sandbox, docs/daemon-api.md). Main thread; the destructor never throws.
#pragma once

#include <ostream>
#include <string>

#include "daemon_connection.hpp"
#include "global_options.hpp"

namespace kg::cli {

class CommandSession {
 public:
  // POST /v1/sessions {"client":"cli"} (starting the daemon when nobody listens, as with_daemon
  // does). Throws what with_daemon throws, and MalformedMessage for an answer that is not a
  // Session.
  CommandSession(const DaemonConnection& connection, const GlobalOptions& globals,
                 std::ostream& diagnostics);
  // DELETE /v1/sessions/{id}; a failure is ignored (the daemon closes it when it stops).
  ~CommandSession();
  CommandSession(const CommandSession&) = delete;
  CommandSession& operator=(const CommandSession&) = delete;

  const std::string& id() const noexcept { return id_; }

 private:
  const DaemonConnection& connection_;
  std::string id_;
};

}  // namespace kg::cli
