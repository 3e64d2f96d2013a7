// Lets another thread abort a UnixHttpClient request in flight: cancel() shuts the request's
// socket down, so the blocked caller gets an HttpTransportError at once and the server sees the
// client hang up (the sandbox server then kills the command's process group).
//
// One canceller serves one request at a time; cancel() may be called from any thread.
#pragma once

#include <mutex>

namespace kg::net {

class RequestCanceller {
 public:
  void cancel() noexcept;
  bool cancelled() const noexcept;
  // Clears a cancellation before the next request.
  void reset() noexcept;

  // Used by UnixHttpClient: attach() throws nothing and returns false when already cancelled.
  bool attach(int socket_fd) noexcept;
  void detach() noexcept;

 private:
  mutable std::mutex mutex_;
  int fd_ = -1;
  bool cancelled_ = false;
};

}  // namespace kg::net
