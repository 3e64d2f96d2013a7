// Errors a session operation reports to its caller; the daemon API maps each to one HTTP status
// and code (api/api_error_mapper.cpp), the only place that does.
#pragma once

#include <stdexcept>

namespace kg::session {

class SessionNotFoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SessionClosedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every session slot is taken and the wait queue is full, or the caller waited too long.
class QueueFullError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The daemon is stopping (SIGTERM or SIGINT): no new sessions, and calls in flight end now.
class ShuttingDownError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller cancelled the call (POST /v1/sessions/{id}/cancel, or it hung up while queued)
// before it finished.
class CancelledError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The runtime this build has is not loaded, or its plugin disabled itself (no Go toolchain).
class RuntimeUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller named a runtime no loaded plugin offers (RuntimeOffer, runtime_choice.hpp): the
// caller's to fix, unlike RuntimeUnavailableError.
class UnknownRuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kg::session
