#include "tidy_module_cache.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <vector>

#include "module_versions.hpp"
#include "owner_folder.hpp"
#include "remove_tree.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

// What a file:// GOPROXY serves of one module version.
constexpr std::array<const char*, 4> kDownloadSuffixes = {".info", ".mod", ".zip", ".ziphash"};

// One module version of one owner: its download files and its unpacked tree.
struct Entry {
  std::vector<fs::path> files;  // under cache/download
  fs::path tree;                // <escaped path>@<escaped version>, when unpacked
  std::uint64_t bytes = 0;
  // When it was last used: its newest download (link_for touches them), else its tree's time.
  fs::file_time_type used = fs::file_time_type::min();
  fs::file_time_type tree_time = fs::file_time_type::min();
};

std::uint64_t tree_bytes(const fs::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) total += it->file_size(ec);
  }
  return total;
}

// Files of <owner>/cache/download/<path>/@v/<version>.<suffix> and trees <owner>/<path>@<version>
// (where unpacking stops): grouped into entries by "<path>@<version>"; everything else (version
// lists, the checksum database's tiles, locks) only counts towards the bytes.
void scan_owner(const fs::path& owner, std::map<std::string, Entry>& entries, std::uint64_t& bytes) {
  std::error_code ec;
  const std::string prefix = owner.filename().string() + "/";
  for (auto it = fs::recursive_directory_iterator(owner, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(owner);
    const std::string name = it->path().filename().string();
    const bool in_downloads = relative.string().starts_with("cache/");
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      const auto at = name.rfind('@');
      if (in_downloads || at == std::string::npos || at == 0 || name == "@v") continue;
      Entry& entry = entries[prefix + relative.string()];
      entry.tree = it->path();
      const auto size = tree_bytes(it->path());
      entry.bytes += size;
      bytes += size;
      entry.tree_time = it->last_write_time(ec);
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    const auto size = it->file_size(ec);
    bytes += size;
    if (!in_downloads || it->path().parent_path().filename() != "@v") continue;
    const auto suffix = std::find_if(kDownloadSuffixes.begin(), kDownloadSuffixes.end(),
                                     [&](const char* s) { return name.ends_with(s); });
    if (suffix == kDownloadSuffixes.end()) continue;
    // cache/download/<path>/@v/<version><suffix> -> <path>@<version>
    const std::string module = relative.parent_path().parent_path().lexically_relative("cache/download").string();
    const std::string version = name.substr(0, name.size() - std::string_view(*suffix).size());
    Entry& entry = entries[prefix + module + "@" + version];
    entry.files.push_back(it->path());
    entry.bytes += size;
    entry.used = std::max(entry.used, it->last_write_time(ec));
  }
}

}  // namespace

TidyModuleCache::TidyModuleCache(std::string root, std::uint64_t max_bytes, plugin::Logger& logger)
    : root_(std::move(root)), max_bytes_(max_bytes), logger_(logger) {
  std::error_code ec;
  fs::create_directories(root_, ec);
  if (ec) throw std::runtime_error("Cannot make " + root_ + ": " + ec.message());
  ::chmod(root_.c_str(), 0700);  // never bound into a sandbox; only the daemon reads it
  // An older daemon used the folder itself as one GOMODCACHE for everyone.
  bool removed = false;
  for (const auto& entry : fs::directory_iterator(root_, ec)) {
    if (is_owner_folder_name(entry.path().filename().string())) continue;
    remove_tree(entry.path().string());
    removed = true;
  }
  if (removed) {
    logger_.log(plugin::LogLevel::info,
                "Tidy module cache: removed the former cache shared by all users in " + root_);
  }
  std::lock_guard lock(mutex_);
  scan_and_evict_locked();
}

TidyModuleCache::Use::Use(TidyModuleCache& cache) : cache_(cache) {
  std::lock_guard lock(cache_.mutex_);
  ++cache_.uses_;
}

TidyModuleCache::Use::~Use() { cache_.end_use(); }

void TidyModuleCache::end_use() noexcept {
  std::lock_guard lock(mutex_);
  if (--uses_ == 0) scan_and_evict_locked();
}

std::string TidyModuleCache::owner_modcache(std::string_view owner) {
  return ensure_owner_folder(root_, owner).string();
}

std::size_t TidyModuleCache::link_for(std::string_view owner, std::string_view go_sum,
                                      const std::string& folder) {
  const fs::path cache = root_ + "/" + owner_folder_name(owner);
  const auto now = fs::file_time_type::clock::now();
  std::size_t linked = 0;
  for (const auto& module : go_sum_modules(go_sum)) {
    const std::string stem = module_download_stem(module);
    if (stem.empty()) continue;
    bool any = false;
    for (const char* suffix : kDownloadSuffixes) {
      const fs::path source = cache / (stem + suffix);
      std::error_code ec;
      if (!fs::is_regular_file(source, ec)) continue;
      link_entry(source, fs::path(folder) / (stem + suffix));
      fs::last_write_time(source, now, ec);  // recently used
      any = true;
    }
    if (any) ++linked;
  }
  return linked;
}

void TidyModuleCache::scan_and_evict_locked() noexcept {
  try {
    std::map<std::string, Entry> entries;
    std::uint64_t total = 0;
    std::error_code ec;
    for (const auto& owner : fs::directory_iterator(root_, ec)) {
      if (is_owner_folder_name(owner.path().filename().string())) scan_owner(owner.path(), entries, total);
    }
    for (auto& [name, entry] : entries) {
      if (entry.files.empty()) entry.used = entry.tree_time;
    }
    if (total > max_bytes_) {
      std::vector<std::pair<std::string, Entry*>> by_use;
      for (auto& [name, entry] : entries) by_use.emplace_back(name, &entry);
      std::sort(by_use.begin(), by_use.end(),
                [](const auto& a, const auto& b) { return a.second->used < b.second->used; });
      const std::uint64_t goal = max_bytes_ / 10 * 9;  // room, so every tidy does not evict
      for (const auto& [name, entry] : by_use) {
        if (total <= goal) break;
        for (const auto& file : entry->files) fs::remove(file, ec);
        if (!entry->tree.empty()) remove_tree(entry->tree.string());
        total -= std::min(total, entry->bytes);
        entries.erase(name);
        logger_.log(plugin::LogLevel::debug, "Tidy module cache: evicted " + name);
      }
    }
    bytes_ = total;
    entries_ = entries.size();
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, std::string("Tidy module cache: cannot evict: ") + e.what());
  }
}

}  // namespace kg::sandbox
