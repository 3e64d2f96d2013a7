#include "metadata_identity.hpp"

#include "http_exchange.hpp"
#include "utc_time.hpp"

namespace kg::sandbox {
namespace {

constexpr const char* kShape =
    R"("credentials" must be an object such as {"access_token": "ya29...", "expiry": )"
    R"("2026-12-03T09:00:00Z", "email": "me@example.com", "project": "my-project"})";

HttpError bad_credentials(const std::string& message) {
  return HttpError(400, "\"credentials\": " + message);
}

std::string optional_text(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  if (member == object.MemberEnd() || member->value.IsNull()) return {};
  if (!member->value.IsString()) throw bad_credentials("\"" + std::string(name) + "\" must be a string");
  std::string text(member->value.GetString(), member->value.GetStringLength());
  // Values end up in HTTP answers and environment variables: printable ASCII only.
  for (const char c : text) {
    if (c < 0x21 || c > 0x7e) {
      throw bad_credentials("\"" + std::string(name) + "\" holds a space or control character");
    }
  }
  return text;
}

// RFC 3339 (lib/time), or a clear refusal.
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

MetadataIdentity parse_command_credentials(const rapidjson::Value& credentials,
                                           std::chrono::system_clock::time_point now) {
  if (!credentials.IsObject()) throw HttpError(400, kShape);
  for (const auto& member : credentials.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (key != "access_token" && key != "expiry" && key != "email" && key != "project" &&
        key != "quota_project") {
      throw bad_credentials("unknown key \"" + std::string(key) +
                            "\"; known: access_token, expiry, email, project, quota_project "
                            "(only a short-lived access token may enter a sandbox)");
    }
  }
  MetadataIdentity identity;
  identity.access_token = optional_text(credentials, "access_token");
  if (identity.access_token.empty()) {
    throw bad_credentials("\"access_token\" is empty or missing: mint a token on the host first");
  }
  const std::string expiry = optional_text(credentials, "expiry");
  if (expiry.empty()) throw bad_credentials("\"expiry\" is required (RFC 3339, e.g. 2026-12-03T09:00:00Z)");
  identity.expiry = parse_expiry(expiry);
  if (identity.expiry <= now) {
    throw bad_credentials("the access token expired at " + expiry +
                          ": mint a fresh one on the host before running the command");
  }
  identity.email = optional_text(credentials, "email");
  identity.project = optional_text(credentials, "project");
  identity.quota_project = optional_text(credentials, "quota_project");
  return identity;
}

}  // namespace kg::sandbox
