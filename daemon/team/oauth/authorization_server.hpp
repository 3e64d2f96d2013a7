// Team mode's OAuth: the daemon as authorization server for MCP clients (RFC 8414 metadata,
// RFC 7591 registration, authorization code + PKCE S256, refresh rotation, RFC 8707 resource
// binding, RFC 9207 iss) that delegates who the user is to an upstream OpenID Connect provider,
// and as resource server (RFC 9728 metadata, the bearer check on /mcp). The user's upstream
// tokens are kept sealed, so [team] run_as = user can run programs with the user's own access
// token (which, in [team] user_token_mode = sealed, only the daemon's egress proxy adds).
//
// The HTTP layer (daemon/team/http) calls serves() / handle() for the OAuth paths and
// authenticate() for /mcp, from any of its threads; the call path asks upstream_credentials()
// from a call's thread. All methods are thread-safe. Endpoints: docs/team-oauth.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "address_rate_limiter.hpp"
#include "credentials_plugin.hpp"
#include "host_services.hpp"
#include "http_exchange.hpp"
#include "oauth_settings.hpp"
#include "store.hpp"

namespace kg::team {

namespace oauth {
// Why a Client ID Metadata Document at `host` must not be fetched (an IP literal, a name that
// does not resolve, or one resolving to a loopback, private, link-local or metadata address);
// nullopt: a public name.
std::optional<std::string> metadata_document_host_problem(const std::string& host);

class TokenSealer;
class UpstreamHttp;
class UpstreamOidcClient;
class UserAllowlist;
struct FormFields;
struct PendingAuthorization;
struct PendingConsent;
}  // namespace oauth

class AuthorizationServer {
 public:
  using Clock = std::function<std::int64_t()>;  // Unix seconds

  // Creates the sealing key in settings.state_dir when missing. Throws std::runtime_error (a
  // SealingError) when it cannot. Contacts nobody: discovery happens at the first sign-in.
  AuthorizationServer(OAuthSettings settings, store::Store& store, plugin::Logger& logger);
  // With a clock of its own (tests move time forward).
  AuthorizationServer(OAuthSettings settings, store::Store& store, plugin::Logger& logger,
                      Clock clock);
  ~AuthorizationServer();
  AuthorizationServer(const AuthorizationServer&) = delete;
  AuthorizationServer& operator=(const AuthorizationServer&) = delete;

  bool serves(std::string_view path) const;        // the well-known and /oauth/* paths
  HttpReply handle(const HttpExchange& request);   // never throws: errors become replies
  std::variant<SignedInUser, AuthFailure> authenticate(const HttpExchange& request);
  // For [team] run_as = user: the user's upstream access token, valid >= 5 more minutes,
  // refreshed on the host with the sealed refresh token. Throws plugin::CredentialsError.
  plugin::RunCredentials upstream_credentials(const std::string& user_id);

  const OAuthSettings& settings() const { return settings_; }
  std::string resource() const { return settings_.public_url + "/mcp"; }

 private:
  HttpReply dispatch(const HttpExchange& request);
  HttpReply protected_resource_metadata() const;
  HttpReply authorization_server_metadata() const;
  HttpReply register_client(const HttpExchange& request);
  HttpReply authorize(const HttpExchange& request);
  HttpReply callback(const HttpExchange& request);
  // consent_endpoint.cpp: the page asking the signed-in user to approve the client, its form's
  // POST /oauth/consent, and the code that follows an approval.
  HttpReply ask_consent(oauth::PendingAuthorization authorization, const std::string& user_id,
                        const std::string& email);
  HttpReply consent(const HttpExchange& request);
  HttpReply issue_code(const oauth::PendingAuthorization& authorization, const std::string& user_id,
                       const std::string& email);
  HttpReply token(const HttpExchange& request);
  HttpReply redeem_code(const oauth::FormFields& form);
  HttpReply rotate_refresh_token(const oauth::FormFields& form);
  HttpReply issue_tokens(const std::string& family_id, const std::string& user_id,
                         const std::string& client_id, const std::string& resource,
                         const std::string& scope);
  std::optional<store::OAuthClientRecord> find_client(const std::string& client_id);
  void remember(const std::string& upstream_state, oauth::PendingAuthorization pending);
  std::optional<oauth::PendingAuthorization> take_pending(const std::string& upstream_state);

  OAuthSettings settings_;
  store::Store& store_;
  plugin::Logger& logger_;
  Clock clock_;
  std::unique_ptr<oauth::UserAllowlist> allowlist_;
  std::unique_ptr<oauth::TokenSealer> sealer_;
  std::unique_ptr<oauth::UpstreamOidcClient> upstream_;
  std::unique_ptr<oauth::UpstreamHttp> metadata_documents_;  // fetches Client ID Metadata Documents
  std::unique_ptr<AddressRateLimiter> registrations_;  // [oauth] registrations_per_hour

  std::mutex pending_mutex_;  // sign-ins between /oauth/authorize and /oauth/callback
  std::map<std::string, oauth::PendingAuthorization> pending_;
  std::map<std::string, oauth::PendingConsent> consents_;  // by consent id; under pending_mutex_
  std::set<std::string> approved_;  // "<user_id> <client_id>" the user approved; under pending_mutex_
  std::mutex refresh_mutex_;  // one upstream refresh at a time
};

}  // namespace kg::team
