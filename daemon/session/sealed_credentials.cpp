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

std::string sealed_mode_note(const std::string& provider, const std::string& network,
                             bool kubernetes_egress) {
  const std::string held = "programs hold only a placeholder token, random per call";
  if (provider == "kubernetes" && kubernetes_egress) {
    return held + "; the daemon's egress proxy, which the sandbox pods reach with a credential "
                  "of each call ([kubernetes] egress_proxy_address), puts the real token in its "
                  "place on requests (HTTP/1.1, HTTP/2, gRPC) to Google API hosts (names under "
                  "googleapis.com), and only there";
  }
  if (provider == "kubernetes") {
    return held + ", which no Google API accepts: this daemon is no egress proxy for its "
                  "Kubernetes sandboxes; set [kubernetes] egress_proxy_address "
                  "(docs/kubernetes.md), or the credential plugin's mode = access-token";
  }
  if (network == "allowlist" || network == "auto") {
    return held + "; the daemon's egress proxy puts the real token in its place on "
                         "requests (HTTP/1.1, HTTP/2, gRPC) to Google API hosts (names under "
                         "googleapis.com), and only there";
  }
  if (network == "none") {
    return held + ", and [sandbox] network = none lets nothing leave the sandbox";
  }
  return held + ", which no Google API accepts: sealed credentials need [sandbox] "
                       "network = allowlist (it is " + network + "); or set the credential "
                       "plugin's mode = access-token";
}

std::string unsealed_mode_note(plugin::CredentialMode mode) {
  constexpr const char* kAnywhere =
      ", which it can read and use anywhere it can reach (not only through the egress proxy, "
      "whose API policy and audit see only the requests sent through it) until the token expires";
  switch (mode) {
    case plugin::CredentialMode::access_token:
      return std::string("programs hold the real access token (about an hour)") + kAnywhere;
    case plugin::CredentialMode::workload:
      return std::string("programs hold a real access token (about an hour) of the daemon's own "
                         "identity") + kAnywhere;
    case plugin::CredentialMode::forwarded:
      return "programs hold the real access token and a copy of the ADC file, with its refresh "
             "token or key: they can mint new tokens as this identity, anywhere, until those "
             "credentials are revoked";
    case plugin::CredentialMode::sealed:
    case plugin::CredentialMode::none:
      break;
  }
  return {};
}

}  // namespace kg::session
