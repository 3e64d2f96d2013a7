#include "config_value_parser.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "config_default_paths.hpp"

namespace kg::config {
namespace {

[[noreturn]] void reject(const ConfigKeySpec& spec, std::string_view raw,
                         std::string_view reason = {}) {
  std::string message = "must be " + describe_allowed_values(spec) + ", got \"";
  message.append(raw);
  message += '"';
  if (!reason.empty()) {
    message += " (";
    message.append(reason);
    message += ')';
  }
  throw InvalidConfigValue(message);
}

// Digits only: no sign, no spaces, no suffix, no overflow.
std::optional<std::uint64_t> parse_plain_decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

ConfigValue text_value(std::string text) {
  ConfigValue value;
  value.text = std::move(text);
  return value;
}

// One path: "~/" expanded, then required to be absolute.
std::string absolute_path(const ConfigKeySpec& spec, std::string_view raw,
                          std::string_view element) {
  const auto expanded = expand_home(element);
  if (!expanded) reject(spec, raw, "\"~/\" needs HOME, which is not set");
  if (expanded->empty() || expanded->front() != '/') {
    if (element == raw) reject(spec, raw);
    reject(spec, raw, "\"" + std::string(element) + "\" is not absolute");
  }
  return *expanded;
}

ConfigValue parse_integer(const ConfigKeySpec& spec, std::string_view raw) {
  const auto number = parse_plain_decimal(raw);
  if (!number || *number < spec.min || *number > spec.max) reject(spec, raw);
  ConfigValue value;
  value.number = *number;
  return value;
}

ConfigValue parse_choice(const ConfigKeySpec& spec, std::string_view raw) {
  if (std::find(spec.choices.begin(), spec.choices.end(), raw) == spec.choices.end()) {
    reject(spec, raw);
  }
  return text_value(std::string(raw));
}

ConfigValue parse_absolute_path(const ConfigKeySpec& spec, std::string_view raw) {
  if (raw.empty()) return {};
  std::string path = absolute_path(spec, raw, raw);
  if (spec.max_bytes != 0 && path.size() > spec.max_bytes) {
    reject(spec, raw, std::to_string(path.size()) + " bytes");
  }
  return text_value(std::move(path));
}

ConfigValue parse_program(const ConfigKeySpec& spec, std::string_view raw) {
  if (raw.empty()) reject(spec, raw);
  if (raw.find('/') == std::string_view::npos) return text_value(std::string(raw));
  return text_value(absolute_path(spec, raw, raw));
}

ConfigValue parse_path_list(const ConfigKeySpec& spec, std::string_view raw) {
  ConfigValue value;
  std::string_view rest = raw;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const auto element = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    if (element.empty()) continue;  // "a::b" and a trailing ':' name no extra directory
    value.list.push_back(absolute_path(spec, raw, element));
  }
  return value;
}

}  // namespace

ConfigValue parse_config_value(const ConfigKeySpec& spec, std::string_view raw) {
  switch (spec.kind) {
    case ValueKind::integer: return parse_integer(spec, raw);
    case ValueKind::choice: return parse_choice(spec, raw);
    case ValueKind::absolute_path: return parse_absolute_path(spec, raw);
    case ValueKind::program: return parse_program(spec, raw);
    case ValueKind::path_list: return parse_path_list(spec, raw);
  }
  reject(spec, raw);
}

}  // namespace kg::config
