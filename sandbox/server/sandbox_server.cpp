#include "sandbox_server.hpp"

#include <Poco/Net/HTTPServerParams.h>

#include "request_router.hpp"

namespace kg::sandbox {
namespace {

constexpr int kMaxThreads = 16;

Poco::Net::HTTPServerParams::Ptr server_params() {
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(kMaxThreads);
  params->setMaxQueued(64);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(15, 0));
  params->setTimeout(Poco::Timespan(60, 0));  // to receive a request, not to run a command
  params->setServerName("kode-gopher-sandbox");
  return params;
}

}  // namespace

SandboxServer::SandboxServer(const Poco::Net::ServerSocket& socket,
                             const SandboxServerOptions& options, log::Logger& logger)
    : context_(options, logger),
      threads_(2, kMaxThreads),
      server_(std::make_unique<Poco::Net::HTTPServer>(new RequestRouter(context_), threads_,
                                                      socket, server_params())) {}

SandboxServer::~SandboxServer() { stop(); }

void SandboxServer::start() { server_->start(); }

void SandboxServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  server_->stopAll(true);
  threads_.joinAll();
}

}  // namespace kg::sandbox
