// Serves the daemon API over HTTP/1.1 on the daemon's Unix socket (Poco::Net::HTTPServer with
// its own thread pool). Owned by Instance: start() after everything it lends is ready, stop()
// before any of it goes away.
#pragma once

#include <memory>

#include "api_context.hpp"

namespace Poco::Net {
class HTTPServer;
class ThreadPool;
}  // namespace Poco::Net
namespace Poco {
class ThreadPool;
}

namespace kg::api {

class ApiServer {
 public:
  // Binds the socket (mode 0600) now, or takes the one a socket unit handed over; throws
  // std::runtime_error naming the path when it cannot.
  explicit ApiServer(ApiContext& context);
  ~ApiServer();

  void start();
  // Stops taking new connections; requests in flight go on. Idempotent.
  void stop_accepting();
  // Waits until every request in flight has been answered.
  void wait_for_requests();
  // True when systemd (or another launcher) handed the socket over: its file is the unit's, and
  // stays when the daemon stops.
  bool socket_activated() const noexcept { return socket_activated_; }
  void stop() {
    stop_accepting();
    wait_for_requests();
  }

 private:
  ApiContext& context_;
  std::unique_ptr<Poco::ThreadPool> threads_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  bool running_ = false;
  bool socket_activated_ = false;
};

}  // namespace kg::api
