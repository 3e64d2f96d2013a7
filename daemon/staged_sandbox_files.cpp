#include "staged_sandbox_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace kg {
namespace fs = std::filesystem;
namespace {

// Whether two files have the same bytes, read in chunks: the Yaegi cloud runner is 160 MB, and
// reading it whole kept tens of MB of the daemon's heap resident after start.
bool same_content(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const auto size = fs::file_size(a, ec);
  if (ec || !fs::exists(b, ec) || fs::file_size(b, ec) != size || ec) return false;
  std::ifstream in_a(a, std::ios::binary), in_b(b, std::ios::binary);
  if (!in_a || !in_b) return false;
  std::vector<char> chunk_a(1 << 16), chunk_b(1 << 16);
  while (in_a && in_b) {
    in_a.read(chunk_a.data(), static_cast<std::streamsize>(chunk_a.size()));
    in_b.read(chunk_b.data(), static_cast<std::streamsize>(chunk_b.size()));
    if (in_a.gcount() != in_b.gcount() ||
        !std::equal(chunk_a.begin(), chunk_a.begin() + in_a.gcount(), chunk_b.begin())) {
      return false;
    }
  }
  return true;
}

// Writes `to` as a copy of `from` with `mode`, unless it already is one. The copy is written
// beside and renamed into place, so a sandbox never sees half a file.
void copy_if_changed(const fs::path& from, const fs::path& to, fs::perms mode) {
  if (!fs::exists(from)) throw std::runtime_error("Cannot read " + from.string());
  std::error_code ec;
  if (same_content(from, to)) {
    fs::permissions(to, mode, ec);
    return;
  }
  const fs::path temporary = to.string() + ".new-" + std::to_string(::getpid());
  fs::copy_file(from, temporary, fs::copy_options::overwrite_existing);
  fs::permissions(temporary, mode);
  fs::rename(temporary, to);
}

constexpr auto kReadable = fs::perms::owner_read | fs::perms::owner_write |
                           fs::perms::group_read | fs::perms::others_read;
constexpr auto kExecutable = kReadable | fs::perms::owner_exec | fs::perms::group_exec |
                             fs::perms::others_exec;

}  // namespace

void stage_sandbox_files(InstallLayout& layout, const std::string& staging_dir) {
  const fs::path root(staging_dir);
  try {
    fs::create_directories(root / "bin");
    fs::create_directories(root / "lockfile");
    for (const auto& dir : {root, root / "bin", root / "lockfile"}) {
      fs::permissions(dir, kExecutable);  // any sandbox uid may read and pass through
    }
    copy_if_changed(layout.sandbox_server_binary, root / "bin" / "kode-gopher-sandbox", kExecutable);
    copy_if_changed(layout.cacheprog_binary, root / "bin" / "kode-gopher-cacheprog", kExecutable);
    copy_if_changed(layout.fastbuild_binary, root / "bin" / "kode-gopher-fastbuild", kExecutable);
    if (!layout.yaegi_runner_binary.empty()) {
      copy_if_changed(layout.yaegi_runner_binary, root / "bin" / "kode-gopher-yaegi", kExecutable);
    }
    if (!layout.yaegi_cloud_runner_binary.empty()) {
      copy_if_changed(layout.yaegi_cloud_runner_binary, root / "bin" / "kode-gopher-yaegi-cloud",
                      kExecutable);
    }
    for (const auto& entry : fs::directory_iterator(layout.lockfile_dir)) {
      const auto name = entry.path().filename().string();
      if (!entry.is_regular_file() ||
          !(name == "go.mod" || name == "go.sum" || name.ends_with(".go") || name == "prewarm.sh")) {
        continue;
      }
      copy_if_changed(entry.path(), root / "lockfile" / name, kReadable);
    }
  } catch (...) {
    std::throw_with_nested(std::runtime_error("Failed to copy the sandbox's files into " + staging_dir));
  }
  layout.sandbox_server_binary = (root / "bin" / "kode-gopher-sandbox").string();
  layout.cacheprog_binary = (root / "bin" / "kode-gopher-cacheprog").string();
  layout.fastbuild_binary = (root / "bin" / "kode-gopher-fastbuild").string();
  if (!layout.yaegi_runner_binary.empty()) {
    layout.yaegi_runner_binary = (root / "bin" / "kode-gopher-yaegi").string();
  }
  if (!layout.yaegi_cloud_runner_binary.empty()) {
    layout.yaegi_cloud_runner_binary = (root / "bin" / "kode-gopher-yaegi-cloud").string();
  }
  layout.lockfile_dir = (root / "lockfile").string();
}

}  // namespace kg
