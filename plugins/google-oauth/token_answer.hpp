// Reads what a token endpoint answered: the OAuth 2.0 token response ({"access_token",
// "expires_in"}, also what a metadata server answers) and the IAM Credentials
// generateAccessToken response ({"accessToken", "expireTime"}). Every refusal becomes a
// plugin::CredentialsError naming the endpoint, its status and its own words, never the token.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "oauth_http_client.hpp"
#include "utc_time.hpp"

namespace kg::google_oauth {

using SystemTime = utc::TimePoint;

struct MintedToken {
  std::string value;
  SystemTime expiry;
  std::string scope;  // space-separated, as the endpoint answered it; empty when it did not
};

// `call` is the request that got `answer` (its what and url name the endpoint in errors).
MintedToken read_oauth_token_answer(const HttpCall& call, const HttpAnswer& answer, SystemTime now);
MintedToken read_iam_token_answer(const HttpCall& call, const HttpAnswer& answer, SystemTime now);

// The answer as a JSON object; throws CredentialsError (with the parser's message and offset)
// when it is not one.
rapidjson::Document parse_answer_object(const HttpCall& call, const HttpAnswer& answer);

// "<what>: <url> answered HTTP <status>: <error>: <description>" from an error answer
// ({"error", "error_description"} or Google's {"error": {"message", "status"}}).
std::string refusal_message(const HttpCall& call, const HttpAnswer& answer);

}  // namespace kg::google_oauth
