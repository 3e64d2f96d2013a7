#include "request_target.hpp"

#include <Poco/Exception.h>
#include <Poco/URI.h>

namespace kg::api_policy {
namespace {

std::vector<std::pair<std::string, std::string>> split_pairs(std::string_view text,
                                                             bool plus_as_space) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('&', start);
    const auto part = text.substr(start, end == std::string_view::npos ? text.npos : end - start);
    if (!part.empty()) {
      const auto equals = part.find('=');
      const auto name = part.substr(0, equals);
      const auto value = equals == std::string_view::npos ? std::string_view() : part.substr(equals + 1);
      pairs.emplace_back(percent_decoded(name, plus_as_space),
                         percent_decoded(value, plus_as_space));
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return pairs;
}

}  // namespace

std::string percent_decoded(std::string_view text, bool plus_as_space) {
  std::string out;
  try {
    Poco::URI::decode(std::string(text), out, plus_as_space);
  } catch (const Poco::Exception&) {
    return std::string(text);  // not percent-encoding: named as sent
  }
  return out;
}

std::string RequestTarget::query_value(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return {};
}

std::size_t RequestTarget::query_count(std::string_view name) const {
  std::size_t count = 0;
  for (const auto& pair : query) count += pair.first == name ? 1 : 0;
  return count;
}

RequestTarget parse_request_target(std::string_view target) {
  RequestTarget parsed;
  if (!target.starts_with('/')) {
    parsed.ambiguous_because = "its request target is not a path starting with '/'";
  }
  const auto question = target.find('?');
  const auto path = target.substr(0, question);
  if (question != std::string_view::npos) {
    auto query = target.substr(question + 1);
    query = query.substr(0, query.find('#'));
    parsed.query = split_pairs(query, true);
  }
  std::size_t start = 0;
  while (start < path.size()) {
    const auto end = path.find('/', start);
    const auto segment = path.substr(start, end == std::string_view::npos ? path.npos : end - start);
    if (!segment.empty()) {
      parsed.segments.push_back(percent_decoded(segment, false));
      const auto& decoded = parsed.segments.back();
      if ((decoded == "." || decoded == "..") && parsed.ambiguous_because.empty()) {
        parsed.ambiguous_because = "its path has a \"" + decoded + "\" segment (sent as \"" +
                                   std::string(segment) + "\"), which a server may resolve";
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parsed;
}

std::vector<std::pair<std::string, std::string>> parse_request_params(std::string_view header) {
  return split_pairs(header, false);
}

}  // namespace kg::api_policy
