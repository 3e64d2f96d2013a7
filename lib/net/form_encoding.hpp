// Percent-encoding, the one way the project writes a form body (application/x-www-form-
// urlencoded), a query value or a URL path segment: OAuth token requests (team mode's upstream
// client, the credential plugins), authorization redirects, query parameters such as
// tokeninfo's access_token, the CLI's session IDs in request paths. Every byte but RFC 3986's
// unreserved ones (A-Z a-z 0-9 - . _ ~) is percent-encoded, a space as %20, so a value never
// changes meaning in a path, a query or a body, whatever the reader. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::net {

// `text` with every byte but the unreserved ones percent-encoded: "a b&c" -> "a%20b%26c". Safe
// as one name or value of a form or query, and as one URL path segment ('/' becomes %2F).
std::string percent_encode(std::string_view text);

// "name=value&name=value" with each name and value encoded by percent_encode, in order.
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace kg::net
