// The parts of an HTTP request target and of an x-goog-request-params header that the API call
// classifier reads (api_call_classifier.hpp): path segments, each percent-decoded on its own (a
// storage object name's "%2F" stays inside its segment), and name=value pairs. Text that is not
// valid percent-encoding is kept as it was sent: the classifier then names what it saw. Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::api_policy {

struct RequestTarget {
  std::vector<std::string> segments;  // "/a/b%2Fc/" -> {"a", "b/c"} (empty ones dropped)
  std::vector<std::pair<std::string, std::string>> query;  // decoded, '+' as a space
  // The value of the first query parameter `name`; empty when absent.
  std::string query_value(std::string_view name) const;
};

RequestTarget parse_request_target(std::string_view target);

// "a=1&b=projects%2Fp" -> {{"a","1"}, {"b","projects/p"}} ('+' stays '+': gRPC metadata).
std::vector<std::pair<std::string, std::string>> parse_request_params(std::string_view header);

std::string percent_decoded(std::string_view text, bool plus_as_space);

}  // namespace kg::api_policy
