#include "sealed_credentials.hpp"

#include <Poco/RandomStream.h>

#include "base64url.hpp"
#include "utc_time.hpp"

namespace kg::session {

std::string new_placeholder_token() {
  std::string bytes(32, '\0');
  Poco::RandomInputStream random;
  random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return "kg-sealed." + codec::base64url_encode(bytes);
}

std::optional<sandbox::SealedToken> seal_for_sandbox(
    std::optional<plugin::RunCredentials>& credentials) {
  if (!credentials || credentials->mode != plugin::CredentialMode::sealed) return std::nullopt;
  sandbox::SealedToken sealed;
  sealed.placeholder = new_placeholder_token();
  sealed.access_token = std::move(credentials->token.access_token);
  if (const auto expiry = utc::parse_rfc3339(credentials->token.expiry_rfc3339)) {
    sealed.expiry = std::chrono::time_point_cast<std::chrono::system_clock::duration>(*expiry);
  }
  credentials->token.access_token = sealed.placeholder;
  return sealed;
}

}  // namespace kg::session
