// application/x-www-form-urlencoded reading (query strings, /oauth/token bodies; writing is
// lib/net/form_encoding.hpp's net::form_encode), and the URL check OAuth needs: which redirect
// URIs a client may register. Pure functions on Poco::URI.
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
// `url` with the fields appended to its query (after '?' or '&'), encoded by net::form_encode.
std::string with_query(const std::string& url,
                       const std::vector<std::pair<std::string, std::string>>& fields);

// RFC 8252 / OAuth 2.1: https anywhere, or http on a loopback host (net::is_loopback_host);
// no fragment.
// Returns "" when acceptable, else why not.
std::string redirect_uri_problem(const std::string& uri);

}  // namespace kg::team::oauth
