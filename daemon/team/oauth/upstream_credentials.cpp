// AuthorizationServer::upstream_credentials: for [team] run_as = user, the signed-in user's own
// upstream access token for one run, refreshed on the host with their sealed refresh token when
// it has less than five minutes left. The sandbox sees at most the short-lived access token, and
// in [team] user_token_mode = sealed (the default) not even that: CallCredentials sets the mode,
// and the session layer seals the token as it does a credential plugin's.
#include <ctime>
#include <sstream>

#include "authorization_server.hpp"
#include "token_sealer.hpp"
#include "upstream_oidc_client.hpp"
#include "utc_time.hpp"

namespace kg::team {
namespace {

constexpr std::int64_t kMinimumValiditySeconds = 300;

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

}  // namespace

plugin::RunCredentials AuthorizationServer::upstream_credentials(const std::string& user_id) {
  std::lock_guard lock(refresh_mutex_);
  std::optional<store::OAuthUserRecord> user;
  try {
    user = store_.find_oauth_user(user_id);
  } catch (const std::exception& e) {
    throw plugin::CredentialsError(std::string("Cannot read the signed-in user's tokens: ") + e.what());
  }
  if (!user) {
    throw plugin::CredentialsError("The user " + user_id + " has not signed in to this server; "
                                   "sign in again from the MCP client");
  }
  const std::int64_t now = clock_();
  std::string access_token;
  try {
    if (!user->sealed_access_token.empty() &&
        user->access_token_expires - now >= kMinimumValiditySeconds) {
      access_token = sealer_->open(user->sealed_access_token, user_id + " access");
    } else {
      if (user->sealed_refresh_token.empty()) {
        throw plugin::CredentialsError(
            "The identity provider gave " + user->email + " no refresh token and their access "
            "token has expired; sign in again from the MCP client");
      }
      const std::string refresh_token = sealer_->open(user->sealed_refresh_token, user_id + " refresh");
      const oauth::UpstreamTokens tokens = upstream_->refresh(refresh_token);
      access_token = tokens.access_token;
      user->sealed_access_token = sealer_->seal(tokens.access_token, user_id + " access");
      user->sealed_refresh_token = tokens.refresh_token.empty()
                                       ? std::string()  // keeps the stored one
                                       : sealer_->seal(tokens.refresh_token, user_id + " refresh");
      user->access_token_expires = now + (tokens.expires_in_s > 0 ? tokens.expires_in_s : 3600);
      if (!tokens.scope.empty()) user->scopes = tokens.scope;
      user->updated_at = now;
      store_.save_oauth_user(*user);
      logger_.log(plugin::LogLevel::info, "oauth: refreshed the upstream token of " + user->email);
    }
  } catch (const plugin::CredentialsError&) {
    throw;
  } catch (const std::exception& e) {
    throw plugin::CredentialsError("Cannot get an access token for " + user->email + ": " + e.what() +
                                   "; signing in again from the MCP client may help");
  }
  plugin::RunCredentials credentials;
  credentials.mode = plugin::CredentialMode::access_token;  // CallCredentials sets the user's mode
  credentials.token.access_token = access_token;
  credentials.token.expiry_rfc3339 = utc::to_rfc3339(std::chrono::system_clock::from_time_t(
      static_cast<std::time_t>(user->access_token_expires)));
  credentials.token.email = user->email;
  credentials.scopes = words(user->scopes.empty() ? "" : user->scopes);
  credentials.identity = user->email;
  credentials.credential_type = "authorized_user";
  return credentials;
}

}  // namespace kg::team
