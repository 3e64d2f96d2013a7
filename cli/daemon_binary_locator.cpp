#include "daemon_binary_locator.hpp"

#include "cli_errors.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace kg::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDaemonName = "kode-gopherd";

bool is_executable_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

DaemonSearchPlaces current_daemon_search_places() {
  DaemonSearchPlaces places;
  places.override_path = environment("KODE_GOPHERD");
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) places.own_executable = self.string();
  places.path_variable = environment("PATH").value_or("");
  return places;
}

std::string find_daemon_binary(const DaemonSearchPlaces& places) {
  if (places.override_path && !places.override_path->empty()) {
    if (is_executable_file(*places.override_path)) return *places.override_path;
    throw DaemonUnavailableError("KODE_GOPHERD is set to \"" + *places.override_path +
                                 "\", which is not an executable file: point it at kode-gopherd "
                                 "or unset it");
  }
  std::vector<fs::path> candidates;
  if (!places.own_executable.empty()) {
    const fs::path exe_dir = fs::path(places.own_executable).parent_path();
    candidates.push_back(exe_dir / kDaemonName);
    candidates.push_back((exe_dir / ".." / "daemon" / kDaemonName).lexically_normal());
  }
  std::string looked_at = "$KODE_GOPHERD (not set)";
  for (const fs::path& candidate : candidates) {
    if (is_executable_file(candidate)) return candidate.string();
    looked_at += ", " + candidate.string();
  }
  std::string_view path_variable = places.path_variable;
  while (!path_variable.empty()) {
    const std::size_t colon = path_variable.find(':');
    const std::string_view directory = path_variable.substr(0, colon);
    if (!directory.empty()) {
      const fs::path candidate = fs::path(directory) / kDaemonName;
      if (is_executable_file(candidate)) return candidate.string();
    }
    if (colon == std::string_view::npos) break;
    path_variable.remove_prefix(colon + 1);
  }
  throw DaemonUnavailableError("Cannot find kode-gopherd: looked at " + looked_at +
                               " and on $PATH (" + places.path_variable +
                               "): install kode-gopherd next to kode-gopher or set "
                               "KODE_GOPHERD to its path");
}

}  // namespace kg::cli
