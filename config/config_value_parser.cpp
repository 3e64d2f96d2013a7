#include "config_value_parser.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "config_default_paths.hpp"
#include "host_pattern.hpp"

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

// Comma-separated, blanks around items ignored, at least one item.
std::vector<std::string_view> comma_items(const ConfigKeySpec& spec, std::string_view raw) {
  std::vector<std::string_view> items;
  std::string_view rest = raw;
  for (;;) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty()) reject(spec, raw, "an empty item");
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    rest = rest.substr(comma + 1);
  }
}

// A host name ("storage.googleapis.com"), an IP address ("199.36.153.8", "2001:db8::1") or a
// "*.suffix" pattern, exactly as the egress proxy reads them (net::HostPattern).
ConfigValue parse_host_list(const ConfigKeySpec& spec, std::string_view raw) {
  ConfigValue value;
  for (const auto item : comma_items(spec, raw)) {
    try {
      net::HostPattern::parse(item);
    } catch (const net::InvalidHost& e) {
      reject(spec, raw, e.what());
    }
    value.list.emplace_back(item);
  }
  return value;
}

ConfigValue parse_port_list(const ConfigKeySpec& spec, std::string_view raw) {
  ConfigValue value;
  for (const auto item : comma_items(spec, raw)) {
    const auto port = parse_plain_decimal(item);
    if (!port || *port < 1 || *port > 65535) reject(spec, raw, "\"" + std::string(item) + "\"");
    value.list.emplace_back(item);
  }
  return value;
}

ConfigValue parse_text(const ConfigKeySpec& spec, std::string_view raw) {
  if (raw.find_first_of("\r\n") != std::string_view::npos) reject(spec, raw);
  return text_value(std::string(raw));
}

ConfigValue parse_word_list(const ConfigKeySpec& spec, std::string_view raw) {
  if (raw.find_first_of("\r\n") != std::string_view::npos) reject(spec, raw);
  ConfigValue value;
  std::size_t start = 0;
  while (start < raw.size()) {
    const auto end = raw.find_first_of(" \t,", start);
    const auto word = raw.substr(start, end == std::string_view::npos ? raw.size() - start : end - start);
    if (!word.empty()) value.list.emplace_back(word);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return value;
}

// A runtime name as plugins declare them ("compiled-go"): letters, digits, '-', '_' and '.'.
// Whether a loaded plugin offers it is checked once the plugins are known
// (runtime_names_check.hpp).
bool is_runtime_name(std::string_view word) {
  return !word.empty() && word.size() <= 64 && std::all_of(word.begin(), word.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
         });
}

ConfigValue parse_runtime_name(const ConfigKeySpec& spec, std::string_view raw) {
  if (!is_runtime_name(raw)) reject(spec, raw);
  return text_value(std::string(raw));
}

ConfigValue parse_runtime_list(const ConfigKeySpec& spec, std::string_view raw) {
  ConfigValue value = parse_word_list(spec, raw);
  for (const std::string& word : value.list) {
    if (!is_runtime_name(word)) reject(spec, raw, "\"" + word + "\" is not a runtime name");
  }
  return value;
}

// A DNS-1123 label: what Kubernetes accepts as a namespace, a label value and most names.
ConfigValue parse_dns_label(const ConfigKeySpec& spec, std::string_view raw) {
  if (raw.empty()) return {};
  const bool valid = raw.size() <= 63 && raw.front() != '-' && raw.back() != '-' &&
                     std::all_of(raw.begin(), raw.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                     });
  if (!valid) reject(spec, raw);
  return text_value(std::string(raw));
}

// host:port, [v6]:port; "http://" and a trailing '/' are dropped (the router speaks plain HTTP).
ConfigValue parse_host_port(const ConfigKeySpec& spec, std::string_view raw) {
  if (raw.empty()) return {};
  std::string_view rest = raw;
  if (rest.starts_with("https://")) reject(spec, raw, "the sandbox-router speaks plain HTTP");
  if (rest.starts_with("http://")) rest.remove_prefix(7);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) reject(spec, raw, "no port");
  const auto port = parse_plain_decimal(rest.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535) reject(spec, raw, "the port must be from 1 to 65535");
  try {
    net::Host::parse(rest.substr(0, colon));
  } catch (const net::InvalidHost& e) {
    reject(spec, raw, e.what());
  }
  return text_value(std::string(rest));
}

}  // namespace

ConfigValue parse_config_value(const ConfigKeySpec& spec, std::string_view raw) {
  switch (spec.kind) {
    case ValueKind::integer: return parse_integer(spec, raw);
    case ValueKind::choice: return parse_choice(spec, raw);
    case ValueKind::absolute_path: return parse_absolute_path(spec, raw);
    case ValueKind::program: return parse_program(spec, raw);
    case ValueKind::path_list: return parse_path_list(spec, raw);
    case ValueKind::host_list: return parse_host_list(spec, raw);
    case ValueKind::port_list: return parse_port_list(spec, raw);
    case ValueKind::text: return parse_text(spec, raw);
    case ValueKind::dns_label: return parse_dns_label(spec, raw);
    case ValueKind::host_port: return parse_host_port(spec, raw);
    case ValueKind::word_list: return parse_word_list(spec, raw);
    case ValueKind::runtime_name: return parse_runtime_name(spec, raw);
    case ValueKind::runtime_list: return parse_runtime_list(spec, raw);
  }
  reject(spec, raw);
}

}  // namespace kg::config
