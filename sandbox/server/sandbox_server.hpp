// One running kode-gopher-sandbox HTTP server: Poco's HTTPServer on an already listening socket,
// routing through RequestRouter. main() owns one; the end-to-end tests start one in-process.
//
// start() and stop() are called from the owning thread; requests are served on the server's own
// thread pool (up to 16 at once; /execute runs one command at a time).
#pragma once

#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/ThreadPool.h>

#include <memory>

#include "logger.hpp"
#include "route_context.hpp"
#include "sandbox_server_options.hpp"

namespace kg::sandbox {

class SandboxServer {
 public:
  // Throws std::runtime_error when the workdir cannot be used. `logger` must outlive the server.
  SandboxServer(const Poco::Net::ServerSocket& socket, const SandboxServerOptions& options,
                log::Logger& logger);
  ~SandboxServer();
  SandboxServer(const SandboxServer&) = delete;
  SandboxServer& operator=(const SandboxServer&) = delete;

  void start();
  // Stops accepting, shuts the open connections (which kills a running command: its client
  // counts as gone) and waits for the handlers to finish. Safe to call twice.
  void stop();

 private:
  RouteContext context_;
  Poco::ThreadPool threads_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  bool stopped_ = false;
};

}  // namespace kg::sandbox
