// A GCE metadata server for one credentialed /execute command (docs/contracts.md §2): an HTTP server
// on 127.0.0.1 and a free port of the sandbox's own network namespace, which no other sandbox
// and nothing on the host can reach (every sandbox has a namespace of its own; a sandbox that
// shares the host's is refused credentials by the /execute route). It answers with
// answer_metadata_request() and lives exactly as long as this object: the route makes one
// before the command starts and destroys it once the command has ended.
//
// Made and destroyed on the thread serving /execute; requests are served on its own threads.
#pragma once

#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metadata_identity.hpp"

namespace kg::sandbox {

class MetadataEmulator {
 public:
  // Starts serving. Throws std::runtime_error (with the cause nested) when no loopback port can
  // be bound, e.g. in a namespace without a loopback interface.
  explicit MetadataEmulator(MetadataIdentity identity);
  // Stops serving and closes every open connection.
  ~MetadataEmulator();
  MetadataEmulator(const MetadataEmulator&) = delete;
  MetadataEmulator& operator=(const MetadataEmulator&) = delete;

  // "127.0.0.1:<port>".
  const std::string& host() const noexcept { return host_; }
  // What the command's environment gets: GCE_METADATA_HOST, GCE_METADATA_IP and
  // GCE_METADATA_ROOT (Go, google-auth and gcloud read one each), and GOOGLE_CLOUD_PROJECT /
  // GOOGLE_CLOUD_QUOTA_PROJECT when the identity knows them.
  std::vector<std::pair<std::string, std::string>> environment() const;

 private:
  const MetadataIdentity identity_;
  std::string host_;
  Poco::ThreadPool threads_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace kg::sandbox
