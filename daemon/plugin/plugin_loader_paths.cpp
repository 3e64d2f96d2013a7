// PluginLoader, part 1: which file a plugin name means (and which names exist).
#include <set>
#include <string>
#include <system_error>

#include "plugin_load_error.hpp"
#include "plugin_loader.hpp"

namespace kg::plugin_host {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kSuffix = ".so";

// Both paths canonical: true when `file` is below `dir` (at any depth).
bool lies_inside(const fs::path& file, const fs::path& dir) {
  const fs::path relative = file.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

std::string join_dirs(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return "(none configured)";
  std::string out;
  for (const std::string& dir : dirs) {
    if (!out.empty()) out += ", ";
    out += dir;
  }
  return out;
}

}  // namespace

bool is_valid_plugin_name(std::string_view name) noexcept {
  if (name.empty() || name.front() == '-') return false;
  for (const char c : name) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!allowed) return false;
  }
  return true;
}

PluginLoader::ResolvedFile PluginLoader::resolve(std::string_view name) const {
  const std::string name_text(name);
  // Checked before any path is built, so a name can never reach outside the directories.
  if (!is_valid_plugin_name(name)) {
    throw PluginLoadError("Invalid plugin name '" + name_text +
                          "': use lowercase letters, digits and '-'");
  }
  for (const std::string& dir : dirs_) {
    if (dir.empty()) continue;  // never search the working directory by accident
    const fs::path candidate = fs::path(dir) / (name_text + std::string(kSuffix));
    std::error_code error;
    // Follows symlinks: a dangling link or a directory named <name>.so is not a plugin.
    if (!fs::is_regular_file(candidate, error)) continue;
    const fs::path real_dir = fs::canonical(dir, error);
    if (error) continue;
    const fs::path real_file = fs::canonical(candidate, error);
    if (error) continue;
    if (!lies_inside(real_file, real_dir)) {
      throw PluginLoadError("Plugin '" + name_text + "' at '" + candidate.string() +
                            "' resolves outside its plugin directory");
    }
    return ResolvedFile{candidate.string(), real_file};
  }
  throw PluginLoadError("Plugin '" + name_text +
                        "' not found in plugin directories: " + join_dirs(dirs_));
}

std::vector<std::string> PluginLoader::discover() const {
  std::set<std::string> names;
  for (const std::string& dir : dirs_) {
    if (dir.empty()) continue;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      const std::string file_name = it->path().filename().string();
      if (file_name.size() <= kSuffix.size() || !file_name.ends_with(kSuffix)) continue;
      std::error_code status_error;
      if (!fs::is_regular_file(it->path(), status_error)) continue;
      names.insert(file_name.substr(0, file_name.size() - kSuffix.size()));
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace kg::plugin_host
