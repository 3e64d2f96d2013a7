// load_config and check_config_file: one pass over the file (checked_config_file) that both
// share, so `kode-gopher config check` reports exactly what the daemon would refuse or ignore.
// The file is read once, by lib/ini, and every issue names the line of the value it is about.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include "config_default_paths.hpp"
#include "api_policy_config_keys.hpp"
#include "config_keys.hpp"
#include "config_value_parser.hpp"
#include "daemon_config.hpp"
#include "ini_document.hpp"
#include "team_settings.hpp"

namespace kg::config {
namespace {

using ini::IniDocument;
using ini::IniEntry;
using ini::lowercase;
using Severity = ConfigIssue::Severity;

struct CheckedFile {
  DaemonConfig config;
  std::vector<ConfigIssue> issues;
};

const ConfigKeySpec* find_spec(std::string_view section, std::string_view key) {
  for (const auto& spec : config_key_specs()) {
    if (spec.section == section && spec.name == key) return &spec;
  }
  return nullptr;
}

bool is_key_section(std::string_view section) {
  const auto names = config_section_names();
  return std::find(names.begin(), names.end(), section) != names.end();
}

std::string known_keys_in(std::string_view section) {
  std::string out;
  for (const auto& spec : config_key_specs()) {
    if (spec.section != section) continue;
    if (!out.empty()) out += ", ";
    out.append(spec.name);
  }
  return out;
}

std::string outside_section_warning(const std::string& name) {
  std::string message = "unknown key \"" + name + "\" outside any section (";
  const auto lower = lowercase(name);
  for (const auto& spec : config_key_specs()) {
    if (spec.name == lower) {
      message += "put it under [";
      message.append(spec.section);
      return message + "])";
    }
  }
  return message + "keys belong under a section such as [daemon])";
}

ConfigIssue warning_at(const IniDocument& ini, const IniEntry& entry, std::string message) {
  return {Severity::warning, ini.path, "", std::move(message), entry.line};
}

// Warns about names the daemon does not know in its own sections, and copies every other
// section through for the plugin of that name (checked once the plugins are known:
// plugin_section_check.hpp). A name repeated in the file (in any spelling) is reported once, at
// its first line; its last value is the one used.
void check_names(const IniDocument& ini, DaemonConfig& config, std::vector<ConfigIssue>& issues) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const IniEntry& entry : ini.entries) {
    const auto section = lowercase(entry.section);
    const auto key = lowercase(entry.key);
    if (!seen.insert({section, key}).second) continue;
    if (entry.section.empty()) {
      issues.push_back(warning_at(ini, entry, outside_section_warning(entry.key)));
    } else if (is_key_section(section)) {
      if (find_spec(section, key) != nullptr) continue;
      issues.push_back(warning_at(ini, entry,
                                  "unknown key \"" + entry.section + "." + entry.key +
                                      "\" (known keys in [" + section +
                                      "]: " + known_keys_in(section) + ")"));
    } else {
      config.plugin_sections[section][key] = ini.find(section, key)->value;
      config.plugin_section_lines[section][key] = entry.line;
      config.plugin_section_lines[section].emplace("", entry.line);
    }
  }
}

void read_known_keys(const IniDocument& ini, DaemonConfig& config,
                     std::vector<ConfigIssue>& issues) {
  for (const auto& spec : config_key_specs()) {
    const IniEntry* entry = ini.find(spec.section, spec.name);
    if (entry == nullptr) continue;
    config.key_lines[spec.full_name()] = entry->line;
    try {
      spec.assign(config, parse_config_value(spec, entry->value));
    } catch (const InvalidConfigValue& error) {
      issues.push_back({Severity::error, ini.path, spec.full_name(), error.what(), entry->line});
    }
  }
}

bool sets(const IniDocument& ini, const ConfigKeySpec& spec) {
  return ini.find(spec.section, spec.name) != nullptr;
}

// Issues made from the values together (team settings, warnings about ignored keys) name a key
// but no line: give them the line of that key's value in the file.
void locate_issues(const IniDocument& ini, std::vector<ConfigIssue>& issues) {
  for (auto& issue : issues) {
    if (issue.line != 0 || issue.key.empty()) continue;
    const auto dot = issue.key.find('.');
    if (dot == std::string::npos) continue;
    if (const IniEntry* entry = ini.find(issue.key.substr(0, dot), issue.key.substr(dot + 1))) {
      issue.line = entry->line;
    }
  }
}

void resolve_default_paths(DaemonConfig& config) {
  if (config.state_dir.empty()) config.state_dir = default_state_dir();
  if (config.socket_path.empty()) config.socket_path = default_socket_path(config.state_dir);
}

CheckedFile checked_config_file(const std::string& path) {
  CheckedFile checked;
  checked.config.source_path = path;
  const IniDocument ini = ini::read_ini_file(path);
  for (const auto& problem : ini.problems) {
    checked.issues.push_back({Severity::error, path, "", problem.message, problem.line});
  }
  check_names(ini, checked.config, checked.issues);
  read_known_keys(ini, checked.config, checked.issues);
  if (ini.find("sandbox", "host_uid") != nullptr && checked.config.sandbox_host_uid == 0) {
    checked.issues.push_back(
        {Severity::warning, path, "sandbox.host_uid",
         "0 runs a root daemon's sandboxes as host root: a sandbox escape would be host root "
         "(remove the key to run them as uid 65534)"});
  }
  for (auto& issue : api_policy_issues(checked.config, path)) {
    checked.issues.push_back(std::move(issue));
  }
  const auto& limits = checked.config.limits;
  if (limits.run_timeout_ms > limits.max_run_timeout_ms) {
    checked.issues.push_back(
        {Severity::error, path, "limits.run_timeout_ms",
         std::to_string(limits.run_timeout_ms) + " is above limits.max_run_timeout_ms (" +
             std::to_string(limits.max_run_timeout_ms) +
             "), the longest a call may ask for: raise max_run_timeout_ms or lower "
             "run_timeout_ms"});
  }
  for (auto& issue : team_settings_issues(checked.config, path)) {
    checked.issues.push_back(std::move(issue));
  }
  if (checked.config.sandbox_provider != "kubernetes") {
    for (const auto& spec : config_key_specs()) {
      if (spec.section == "kubernetes" && sets(ini, spec)) {
        checked.issues.push_back(
            {Severity::warning, path, spec.full_name(),
             "ignored: the [kubernetes] keys are read only with [sandbox] provider = kubernetes"});
      }
    }
  }
  locate_issues(ini, checked.issues);
  resolve_default_paths(checked.config);
  return checked;
}

bool file_exists(const std::string& path) {
  std::error_code error;
  // A dangling symlink counts as missing; a file that exists but cannot be read is reported
  // by the reader with the reason.
  return std::filesystem::exists(path, error) || error.value() == EACCES;
}

}  // namespace

std::string ConfigIssue::to_string() const {
  std::string out = ini::SourceLocation{file, line}.to_string() + ": ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

LoadedConfig load_config(const std::optional<std::string>& path) {
  const char* from_env = std::getenv("KODE_GOPHER_CONFIG");
  const bool named = path.has_value() || (from_env != nullptr && *from_env != '\0');
  const std::string file = path ? *path : default_config_path();
  if (file.empty() || !file_exists(file)) {
    if (named) {
      std::string message = "Config file " + file + " does not exist";
      if (!path) message += " (named by KODE_GOPHER_CONFIG)";
      throw ConfigError(message, {{Severity::error, file, "", "does not exist"}});
    }
    LoadedConfig defaults;
    resolve_default_paths(defaults.config);
    return defaults;
  }
  auto checked = checked_config_file(file);
  LoadedConfig loaded;
  std::vector<ConfigIssue> errors;
  for (auto& issue : checked.issues) {
    (issue.severity == Severity::error ? errors : loaded.warnings).push_back(std::move(issue));
  }
  if (!errors.empty()) {
    std::string message = "Invalid configuration in " + file + ":";
    for (const auto& error : errors) message += "\n  " + error.to_string();
    throw ConfigError(message, std::move(errors));
  }
  loaded.config = std::move(checked.config);
  return loaded;
}

std::vector<ConfigIssue> check_config_file(const std::string& path) {
  try {
    if (path.empty() || !file_exists(path)) {
      return {{Severity::error, path, "", "does not exist"}};
    }
    return checked_config_file(path).issues;
  } catch (const std::exception& error) {
    return {{Severity::error, path, "", std::string("cannot be checked: ") + error.what()}};
  }
}

}  // namespace kg::config
