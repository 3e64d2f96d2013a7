// application/x-www-form-urlencoded in both directions (query strings, /oauth/token bodies), and
// the URL checks OAuth needs: which redirect URIs a client may register, and what counts as
// loopback. Pure functions on Poco::URI.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::team::oauth {

struct FormFields {
  std::map<std::string, std::string> values;
  std::vector<std::string> repeated;  // names given more than once (RFC 6749 §3.1 forbids it)

  // The value, or "" when absent.
  const std::string& get(const std::string& name) const;
  bool has(const std::string& name) const { return values.count(name) != 0; }
};

// Decodes "a=1&b=x%20y" ('+' is a space). Throws std::invalid_argument on bad escapes.
FormFields parse_form(std::string_view text);
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);
// `url` with the fields appended to its query (after '?' or '&').
std::string with_query(const std::string& url,
                       const std::vector<std::pair<std::string, std::string>>& fields);

bool is_loopback_host(const std::string& host);
// RFC 8252 / OAuth 2.1: https anywhere, or http on a loopback host; no fragment.
// Returns "" when acceptable, else why not.
std::string redirect_uri_problem(const std::string& uri);

}  // namespace kg::team::oauth
