// load_config and check_config_file: one pass over the file (checked_config_file) that both
// share, so `kode-gopher config check` reports exactly what the daemon would refuse or ignore.
#include <Poco/Util/AbstractConfiguration.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "config_default_paths.hpp"
#include "config_keys.hpp"
#include "config_value_parser.hpp"
#include "daemon_config.hpp"
#include "ini_file_reader.hpp"
#include "team_settings.hpp"

namespace kg::config {
namespace {

using Poco::Util::AbstractConfiguration;
using Severity = ConfigIssue::Severity;

struct CheckedFile {
  DaemonConfig config;
  std::vector<ConfigIssue> issues;
};

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Poco matches names case-insensitively but lists each spelling; keep the first of each.
std::vector<std::string> child_names(const AbstractConfiguration& values,
                                     const std::string& prefix) {
  AbstractConfiguration::Keys names;
  values.keys(prefix, names);
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (seen.insert(lowercase(name)).second) unique.push_back(name);
  }
  return unique;
}

// Names (relative to `prefix`) of every key with a value under it. A key with a dot in its
// name ("a.b = 1" in [daemon]) is a subtree to Poco, so walk down.
void collect_keys(const AbstractConfiguration& values, const std::string& prefix,
                  const std::string& relative, std::vector<std::string>& out) {
  for (const auto& child : child_names(values, prefix)) {
    const std::string full = prefix + "." + child;
    const std::string name = relative.empty() ? child : relative + "." + child;
    if (values.hasProperty(full)) out.push_back(name);
    collect_keys(values, full, name, out);
  }
}

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

const PluginSectionSpec* find_plugin_section(std::string_view section) {
  for (const auto& plugin : plugin_section_specs()) {
    if (plugin.name == section) return &plugin;
  }
  return nullptr;
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

std::string known_sections() {
  std::string out = "known sections: ";
  bool first = true;
  for (const auto section : config_section_names()) {
    if (!first) out += ", ";
    out.append(section);
    first = false;
  }
  out += "; plugin sections: ";
  first = true;
  for (const auto& plugin : plugin_section_specs()) {
    if (!first) out += ", ";
    out.append(plugin.name);
    first = false;
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

// Warns about names the daemon does not know (in plugin sections too, where the plugin lists
// its keys) and copies plugin sections through for the plugins to read.
void check_names(const AbstractConfiguration& values, const std::string& path,
                 DaemonConfig& config, std::vector<ConfigIssue>& issues) {
  for (const auto& name : child_names(values, "")) {
    if (values.hasProperty(name)) {
      issues.push_back({Severity::warning, path, "", outside_section_warning(name)});
    }
    std::vector<std::string> keys;
    collect_keys(values, name, "", keys);
    if (keys.empty()) continue;
    const auto section = lowercase(name);
    if (is_key_section(section)) {
      for (const auto& key : keys) {
        if (find_spec(section, lowercase(key)) != nullptr) continue;
        issues.push_back({Severity::warning, path, "",
                          "unknown key \"" + name + "." + key + "\" (known keys in [" + section +
                              "]: " + known_keys_in(section) + ")"});
      }
    } else if (const PluginSectionSpec* plugin = find_plugin_section(section)) {
      auto& plugin_keys = config.plugin_sections[section];
      for (const auto& key : keys) {
        const auto lower = lowercase(key);
        plugin_keys[lower] = values.getRawString(name + "." + key);
        if (plugin->keys.empty() ||
            std::find(plugin->keys.begin(), plugin->keys.end(), lower) != plugin->keys.end()) {
          continue;
        }
        std::string known;
        for (const auto known_key : plugin->keys) known += (known.empty() ? "" : ", ") + std::string(known_key);
        issues.push_back({Severity::warning, path, "",
                          "unknown key \"" + name + "." + key + "\" (known keys in [" + section +
                              "]: " + known + ")"});
      }
    } else {
      issues.push_back({Severity::warning, path, "",
                        "unknown section [" + name + "] (" + known_sections() + ")"});
    }
  }
}

void read_known_keys(const AbstractConfiguration& values, const std::string& path,
                     DaemonConfig& config, std::vector<ConfigIssue>& issues) {
  for (const auto& spec : config_key_specs()) {
    const auto key = spec.full_name();
    if (!values.hasProperty(key)) continue;
    // Raw: Poco's getString would expand ${...} references, which this format does not promise.
    const auto raw = values.getRawString(key);
    try {
      spec.assign(config, parse_config_value(spec, raw));
    } catch (const InvalidConfigValue& error) {
      issues.push_back({Severity::error, path, key, error.what()});
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
  auto ini = read_ini_file(path);
  checked.issues = std::move(ini.issues);
  if (ini.values) {
    check_names(*ini.values, path, checked.config, checked.issues);
    read_known_keys(*ini.values, path, checked.config, checked.issues);
    if (ini.values->hasProperty("sandbox.host_uid") && checked.config.sandbox_host_uid == 0) {
      checked.issues.push_back(
          {Severity::warning, path, "sandbox.host_uid",
           "0 runs a root daemon's sandboxes as host root: a sandbox escape would be host root "
           "(remove the key to run them as uid 65534)"});
    }
    for (auto& issue : team_settings_issues(checked.config, path)) {
      checked.issues.push_back(std::move(issue));
    }
    if (checked.config.sandbox_provider != "kubernetes") {
      for (const auto& spec : config_key_specs()) {
        if (spec.section == "kubernetes" && ini.values->hasProperty(spec.full_name())) {
          checked.issues.push_back(
              {Severity::warning, path, spec.full_name(),
               "ignored: the [kubernetes] keys are read only with [sandbox] provider = kubernetes"});
        }
      }
    }
  }
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
  if (key.empty()) return file + ": " + message;
  return file + ": " + key + ": " + message;
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
