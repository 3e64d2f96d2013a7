#include "metadata_emulator.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

#include <stdexcept>

#include "metadata_answers.hpp"

namespace kg::sandbox {
namespace {

class MetadataHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit MetadataHandler(const MetadataIdentity& identity) : identity_(identity) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    MetadataRequest asked;
    asked.method = request.getMethod();
    asked.target = request.getURI();
    asked.metadata_flavor_google = request.get("Metadata-Flavor", "") == "Google";
    asked.forwarded = request.has("X-Forwarded-For");
    const auto answer =
        answer_metadata_request(asked, identity_, std::chrono::system_clock::now());
    response.set("Metadata-Flavor", "Google");
    if (answer.status == 405) response.set("Allow", "GET");
    response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status));
    response.setContentType(answer.content_type);
    response.sendBuffer(answer.body.data(), answer.body.size());
  }

 private:
  const MetadataIdentity& identity_;
};

class MetadataHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit MetadataHandlerFactory(const MetadataIdentity& identity) : identity_(identity) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new MetadataHandler(identity_);
  }

 private:
  const MetadataIdentity& identity_;
};

Poco::Net::ServerSocket loopback_listener() {
  try {
    return Poco::Net::ServerSocket(Poco::Net::SocketAddress("127.0.0.1", 0), 64);
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("Cannot listen on a loopback port for the metadata emulator (" +
                             e.displayText() + "): the sandbox's network namespace needs lo up");
  }
}

Poco::Net::HTTPServerParams::Ptr emulator_params() {
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(4);
  params->setMaxQueued(64);
  params->setKeepAlive(true);
  params->setServerName("Metadata Server for VM");
  return params;
}

}  // namespace

MetadataEmulator::MetadataEmulator(MetadataIdentity identity)
    : identity_(std::move(identity)), threads_(1, 4) {
  Poco::Net::ServerSocket socket = loopback_listener();
  host_ = "127.0.0.1:" + std::to_string(socket.address().port());
  server_ = std::make_unique<Poco::Net::HTTPServer>(new MetadataHandlerFactory(identity_), threads_,
                                                    socket, emulator_params());
  server_->start();
}

MetadataEmulator::~MetadataEmulator() {
  server_->stopAll(true);
  threads_.joinAll();
}

std::vector<std::pair<std::string, std::string>> MetadataEmulator::environment() const {
  std::vector<std::pair<std::string, std::string>> env = {
      {"GCE_METADATA_HOST", host_},  // Go, google-auth (newer), Node
      {"GCE_METADATA_IP", host_},    // google-auth's and gcloud's reachability check
      {"GCE_METADATA_ROOT", host_},  // gcloud, older google-auth
  };
  if (!identity_.project.empty()) env.emplace_back("GOOGLE_CLOUD_PROJECT", identity_.project);
  if (!identity_.quota_project.empty()) {
    env.emplace_back("GOOGLE_CLOUD_QUOTA_PROJECT", identity_.quota_project);
  }
  return env;
}

}  // namespace kg::sandbox
