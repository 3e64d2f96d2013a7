// The one table of the daemon's own configuration keys: section, name, kind, allowed values,
// default and meaning. Plugin sections are not here: each plugin declares its keys in its
// descriptor (plugin_section_check.hpp). The loader checks and assigns values through it, its
// warnings list known keys from it, and docs/configuration.md is generated from it
// (config_reference_markdown(); a unit test keeps the two in step). Static, immutable data:
// read it from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon_config.hpp"

namespace kg::config {

enum class ValueKind {
  integer,        // plain decimal digits, from `min` to `max`
  choice,         // exactly one of `choices`
  absolute_path,  // absolute after "~/" expansion; empty means the default
  program,        // an absolute path (after "~/" expansion) or a bare name looked up in PATH
  path_list,      // ':'-separated absolute paths; empty means the default
  host_list,      // ','-separated host names, IP addresses and "*.suffix" patterns
  port_list,      // ','-separated ports from 1 to 65535
  text,           // one line of any text; empty means the default
  dns_label,      // a Kubernetes name: lowercase letters, digits and '-', at most 63; empty: default
  host_port,      // host:port (an http:// prefix and a trailing '/' are dropped); empty: default
  word_list,      // words separated by spaces or commas; empty means none
  runtime_name,   // a runtime name (letters, digits, '-', '_', '.'); the plugins say which exist
  runtime_list,   // runtime names separated by spaces or commas; empty means none
};

// A value that passed its key's checks, in the form its kind produces.
struct ConfigValue {
  std::uint64_t number = 0;        // integer
  std::string text;                // choice, absolute_path, program
  std::vector<std::string> list;   // path_list, host_list, port_list (as written)
};

struct ConfigKeySpec {
  std::string_view section;
  std::string_view name;
  ValueKind kind;
  std::uint64_t min = 0;                          // integer
  std::uint64_t max = 0;                          // integer
  std::span<const std::string_view> choices = {}; // choice
  std::size_t max_bytes = 0;                      // absolute_path: longest value; 0 = no limit
  // The literal default (what `current` gives for DaemonConfig{}), except for the path kinds,
  // whose defaults depend on the environment: there a Markdown description.
  std::string_view default_text;
  std::string_view help;                          // one line: what the key changes
  void (*assign)(DaemonConfig&, const ConfigValue&) = nullptr;
  std::string (*current)(const DaemonConfig&) = nullptr;  // the value as a config file spells it

  std::string full_name() const;  // "daemon.max_sessions"
};

std::span<const ConfigKeySpec> config_key_specs();
bool default_is_description(ValueKind kind);

// The sections that hold keys of config_key_specs(), in table order, each once.
std::vector<std::string_view> config_section_names();

// What a key accepts, for messages and docs: "an integer from 1 to 1024",
// "one of error, warn, info, debug", "an absolute path", ...
std::string describe_allowed_values(const ConfigKeySpec& spec);

// The Markdown table of every key (key, default, allowed values, meaning) that
// docs/configuration.md carries between its KEY TABLE markers.
std::string config_reference_markdown();

}  // namespace kg::config
