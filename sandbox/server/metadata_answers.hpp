// What the GCE metadata emulator answers to one request, exactly as docs/contracts.md §2 lists it:
// the subset of the Compute Engine metadata server that Go (cloud.google.com/go/compute/metadata,
// golang.org/x/oauth2/google), Python google-auth, Node gcp-metadata and gcloud read to find a
// project and an access token. A pure function of the request, the identity and the time, so
// every route is tested without a socket; MetadataEmulator puts it on the wire.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "metadata_identity.hpp"

namespace kg::sandbox {

struct MetadataRequest {
  std::string_view method;
  std::string_view target;  // path and query as sent: /computeMetadata/v1/...?recursive=true
  bool metadata_flavor_google = false;  // the request had "Metadata-Flavor: Google"
  bool forwarded = false;               // it had X-Forwarded-For (came through a proxy)
};

struct MetadataAnswer {
  int status = 200;
  std::string content_type;  // "application/text" or "application/json"
  std::string body;
  // Every answer also carries "Metadata-Flavor: Google"; 405 answers carry "Allow: GET".
};

inline constexpr const char* kCloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";

// Never throws for any request.
MetadataAnswer answer_metadata_request(const MetadataRequest& request,
                                       const MetadataIdentity& identity,
                                       std::chrono::system_clock::time_point now);

}  // namespace kg::sandbox
