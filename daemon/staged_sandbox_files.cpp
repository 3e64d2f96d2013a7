#include "staged_sandbox_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kg {
namespace fs = std::filesystem;
namespace {

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("Cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `to` as a copy of `from` with `mode`, unless it already is one. The copy is written
// beside and renamed into place, so a sandbox never sees half a file.
void copy_if_changed(const fs::path& from, const fs::path& to, fs::perms mode) {
  const std::string content = read_all(from);
  std::error_code ec;
  if (fs::exists(to, ec) && fs::file_size(to, ec) == content.size() && read_all(to) == content) {
    fs::permissions(to, mode, ec);
    return;
  }
  const fs::path temporary = to.string() + ".new-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) throw std::runtime_error("Cannot write " + temporary.string());
  }
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
    if (!layout.yaegi_runner_binary.empty()) {
      copy_if_changed(layout.yaegi_runner_binary, root / "bin" / "kode-gopher-yaegi", kExecutable);
    }
    if (!layout.yaegi_cloud_runner_binary.empty()) {
      copy_if_changed(layout.yaegi_cloud_runner_binary, root / "bin" / "kode-gopher-yaegi-cloud",
                      kExecutable);
    }
    for (const auto& entry : fs::directory_iterator(layout.lockfile_dir)) {
      const auto name = entry.path().filename().string();
      if (!entry.is_regular_file() || !(name == "go.mod" || name == "go.sum" || name.ends_with(".go"))) {
        continue;
      }
      copy_if_changed(entry.path(), root / "lockfile" / name, kReadable);
    }
  } catch (...) {
    std::throw_with_nested(std::runtime_error("Failed to copy the sandbox's files into " + staging_dir));
  }
  layout.sandbox_server_binary = (root / "bin" / "kode-gopher-sandbox").string();
  layout.cacheprog_binary = (root / "bin" / "kode-gopher-cacheprog").string();
  if (!layout.yaegi_runner_binary.empty()) {
    layout.yaegi_runner_binary = (root / "bin" / "kode-gopher-yaegi").string();
  }
  if (!layout.yaegi_cloud_runner_binary.empty()) {
    layout.yaegi_cloud_runner_binary = (root / "bin" / "kode-gopher-yaegi-cloud").string();
  }
  layout.lockfile_dir = (root / "lockfile").string();
}

}  // namespace kg
