// The three ways creds-adc turns credentials into a short-lived access token, all on the host:
// the refresh-token grant (authorized_user), the RS256 JWT-bearer grant signed with the service
// account's key (service_account), and IAM Credentials generateAccessToken (impersonation).
// Each throws plugin::CredentialsError naming the endpoint and what it answered.
#pragma once

#include <string>
#include <vector>

#include "adc_file.hpp"
#include "oauth_http_client.hpp"
#include "token_answer.hpp"

namespace kg::creds_adc {

// token_url: where to post the grant (config, else the file's token_uri, else Google's).
google_oauth::MintedToken refresh_user_token(const google_oauth::OAuthHttpClient& http,
                                             const std::string& token_url,
                                             const AuthorizedUser& user,
                                             google_oauth::SystemTime now);

// The JWT's aud is token_url (Google requires it to be the endpoint it is posted to).
google_oauth::MintedToken service_account_token(const google_oauth::OAuthHttpClient& http,
                                                const std::string& token_url,
                                                const ServiceAccountKey& key,
                                                const std::vector<std::string>& scopes,
                                                google_oauth::SystemTime now);

// POST <url> (…/serviceAccounts/<email>:generateAccessToken) with the source token.
google_oauth::MintedToken impersonated_token(const google_oauth::OAuthHttpClient& http,
                                             const std::string& url,
                                             const std::string& source_token,
                                             const std::vector<std::string>& delegates,
                                             const std::vector<std::string>& scopes,
                                             google_oauth::SystemTime now);

// The generateAccessToken URL of `email` under an IAM Credentials base URL.
std::string generate_access_token_url(const std::string& base_url, const std::string& email);

}  // namespace kg::creds_adc
