#include "owner_folder.hpp"

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "o-";
constexpr std::size_t kDigits = 32;

void make_folders(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("Cannot make " + dir.string() + ": " + ec.message());
}

}  // namespace

std::string owner_folder_name(std::string_view owner_id) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(owner_id.data(), static_cast<unsigned>(owner_id.size()));
  return std::string(kPrefix) + Poco::DigestEngine::digestToHex(sha.digest()).substr(0, kDigits);
}

bool is_owner_folder_name(std::string_view name) noexcept {
  if (name.size() != kPrefix.size() + kDigits || !name.starts_with(kPrefix)) return false;
  return std::all_of(name.begin() + kPrefix.size(), name.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

fs::path ensure_owner_folder(const fs::path& root, std::string_view owner_id) {
  const fs::path dir = root / owner_folder_name(owner_id);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error("Cannot make " + dir.string() + ": " + std::strerror(errno));
  }
  // Also an existing one: whatever made it, nobody but the daemon's user may list it.
  if (::chmod(dir.c_str(), 0700) != 0) {
    throw std::runtime_error("Cannot make " + dir.string() + " private: " + std::strerror(errno));
  }
  return dir;
}

void link_entry(const fs::path& source, const fs::path& target) {
  make_folders(target.parent_path());
  if (::link(source.c_str(), target.c_str()) == 0 || errno == EEXIST) return;
  if (errno != EXDEV) {
    throw std::runtime_error("Cannot link " + source.string() + " to " + target.string() + ": " +
                             std::strerror(errno));
  }
  std::error_code ec;
  fs::copy_file(source, target, fs::copy_options::skip_existing, ec);
  if (!ec) fs::permissions(target, fs::status(source, ec).permissions(), ec);
  if (ec) {
    throw std::runtime_error("Cannot copy " + source.string() + " to " + target.string() + ": " +
                             ec.message());
  }
}

}  // namespace kg::sandbox
