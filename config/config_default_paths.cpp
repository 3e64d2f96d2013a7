#include "config_default_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "daemon_config.hpp"

namespace kg::config {
namespace {

std::optional<std::string> non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// The XDG base directory spec says relative values must be ignored.
std::optional<std::string> xdg_dir(const char* name) {
  auto value = non_empty_env(name);
  if (!value || value->front() != '/') return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> home_dir() { return non_empty_env("HOME"); }

std::string default_state_dir() { return default_state_dir(::geteuid()); }

std::string default_state_dir(uid_t euid) {
  // Root's home is private (0700): its sandboxes, which run as an unprivileged uid, could not
  // read caches kept there. A system daemon's state belongs in /var/lib anyway.
  if (euid == 0) return kRootStateDir;
  if (auto state_home = xdg_dir("XDG_STATE_HOME")) return *state_home + "/kode-gopher";
  if (auto home = home_dir()) return *home + "/.local/state/kode-gopher";
  return "/tmp/kode-gopher-" + std::to_string(euid);
}

std::string default_socket_path(const std::string& state_dir) {
  if (auto runtime_dir = xdg_dir("XDG_RUNTIME_DIR")) {
    return *runtime_dir + "/kode-gopher/daemon.sock";
  }
  return state_dir + "/daemon.sock";
}

std::optional<std::string> expand_home(std::string_view value) {
  if (value != "~" && !value.starts_with("~/")) return std::string(value);
  auto home = home_dir();
  if (!home) return std::nullopt;
  return *home + std::string(value.substr(1));
}

std::string system_config_path() { return KG_SYSTEM_CONFIG_FILE; }

// Without HOME there is no per-user place to look, and a file under /tmp could be planted by
// another user, so only the installed system-wide file is left (empty: all defaults).
std::string default_config_path(const std::string& system_file) {
  if (auto explicit_path = non_empty_env("KODE_GOPHER_CONFIG")) return *explicit_path;
  std::string user_file;
  if (auto config_home = xdg_dir("XDG_CONFIG_HOME")) {
    user_file = *config_home + "/kode-gopher/kode-gopher.ini";
  } else if (auto home = home_dir()) {
    user_file = *home + "/.config/kode-gopher/kode-gopher.ini";
  }
  std::error_code error;
  if (!user_file.empty() && std::filesystem::exists(user_file, error)) return user_file;
  if (!system_file.empty() && std::filesystem::exists(system_file, error)) return system_file;
  return user_file;  // where a user would put one: what messages and `config check` name
}

std::string default_config_path() { return default_config_path(system_config_path()); }

}  // namespace kg::config
