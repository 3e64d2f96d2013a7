#include "metadata_identity.hpp"

#include "http_exchange.hpp"
#include "utc_time.hpp"

namespace kg::sandbox {
namespace {

HttpError bad_credentials(const std::string& message) {
  return HttpError(400, "\"credentials\": " + message);
}

// RFC 3339 (lib/time), whole seconds.
std::chrono::system_clock::time_point parse_expiry(const std::string& text) {
  const auto parsed = utc::parse_rfc3339(text);
  if (!parsed) {
    throw bad_credentials("\"expiry\" must be an RFC 3339 time such as 2026-12-03T09:00:00Z, got \"" +
                          text.substr(0, 64) + "\"");
  }
  return std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      std::chrono::floor<std::chrono::seconds>(*parsed));
}

}  // namespace

MetadataIdentity identity_for_command(const wire::sandbox_api::ExecuteCredentials& credentials,
                                      std::chrono::system_clock::time_point now) {
  MetadataIdentity identity;
  identity.access_token = credentials.access_token;
  identity.expiry = parse_expiry(credentials.expiry);
  if (identity.expiry <= now) {
    throw bad_credentials("the access token expired at " + credentials.expiry +
                          ": mint a fresh one on the host before running the command");
  }
  identity.email = credentials.email;
  identity.project = credentials.project;
  identity.quota_project = credentials.quota_project;
  return identity;
}

}  // namespace kg::sandbox
