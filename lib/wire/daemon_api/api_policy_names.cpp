#include "api_policy_names.hpp"

namespace kg::wire::daemon_api {
namespace {

bool lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

std::string quoted(std::string_view name) { return "\"" + std::string(name.substr(0, 80)) + "\""; }

bool project_id(std::string_view id) {
  if (id.size() < 6 || id.size() > 30) return false;
  if (id.front() < 'a' || id.front() > 'z' || id.back() == '-') return false;
  for (const char c : id) {
    if (!lower_or_digit(c) && c != '-') return false;
  }
  return true;
}

bool digits(std::string_view text) {
  if (text.empty() || text.size() > 20) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool domain(std::string_view text) {
  if (text.empty() || text.size() > 253 || text.front() == '.' || text.back() == '.') return false;
  for (const char c : text) {
    if (!lower_or_digit(c) && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> project_name_problem(std::string_view name) {
  if (digits(name)) return std::nullopt;
  const auto colon = name.find(':');
  if (colon != std::string_view::npos && domain(name.substr(0, colon)) &&
      project_id(name.substr(colon + 1))) {
    return std::nullopt;
  }
  if (colon == std::string_view::npos && project_id(name)) return std::nullopt;
  return quoted(name) +
         " is not a project ID (6 to 30 lowercase letters, digits and '-', starting with a "
         "letter; or a project number)";
}

std::optional<std::string> bucket_name_problem(std::string_view name) {
  const auto problem = [&] {
    return quoted(name) +
           " is not a bucket name (3 to 222 lowercase letters, digits, '-', '_' and '.', "
           "starting and ending with a letter or digit)";
  };
  if (name.size() < 3 || name.size() > 222) return problem();
  if (!lower_or_digit(name.front()) || !lower_or_digit(name.back())) return problem();
  std::size_t part = 0;
  for (const char c : name) {
    if (c == '.') {
      part = 0;
      continue;
    }
    if (!lower_or_digit(c) && c != '-' && c != '_') return problem();
    if (++part > 63) return problem();
  }
  return std::nullopt;
}

}  // namespace kg::wire::daemon_api
