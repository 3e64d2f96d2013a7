// The parts of an HTTP request target and of an x-goog-request-params header that the API call
// classifier reads (api_call_classifier.hpp): path segments, each percent-decoded on its own (a
// storage object name's "%2F" stays inside its segment), and name=value pairs. Text that is not
// valid percent-encoding is kept as it was sent: the classifier then names what it saw. What
// could be read two ways (dot segments, a repeated name) is reported, never resolved one way
// (docs/api-policy.md, "Requests that cannot be classified"). Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::api_policy {

struct RequestTarget {
  std::vector<std::string> segments;  // "/a/b%2Fc/" -> {"a", "b/c"} (empty ones dropped)
  std::vector<std::pair<std::string, std::string>> query;  // decoded, '+' as a space
  // Why the path cannot be read for certain, or empty: a target that is not a path starting
  // with '/' (origin-form, RFC 9112 §3.2.1), or a "." or ".." segment, raw or percent-encoded
  // ("%2e%2E"), which a server or a front end may resolve against the segments before it while
  // the classifier would not.
  std::string ambiguous_because;
  // The value of the first query parameter `name`; empty when absent.
  std::string query_value(std::string_view name) const;
  // How many times the query names `name` (decoded): more than once, a server may read another
  // one than query_value does.
  std::size_t query_count(std::string_view name) const;
};

RequestTarget parse_request_target(std::string_view target);

// "a=1&b=projects%2Fp" -> {{"a","1"}, {"b","projects/p"}} ('+' stays '+': gRPC metadata).
std::vector<std::pair<std::string, std::string>> parse_request_params(std::string_view header);

std::string percent_decoded(std::string_view text, bool plus_as_space);

}  // namespace kg::api_policy
