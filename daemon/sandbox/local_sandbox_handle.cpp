#include "local_sandbox_handle.hpp"

#include <filesystem>

#include "error_chain.hpp"
#include "local_sandbox_layout.hpp"

namespace kg::sandbox {

std::optional<std::string> LocalSandboxHandle::cached_binary(std::string_view key) {
  if (!cache_ || !cache_->contains(key)) return std::nullopt;
  return std::string(kSandboxBinaryCachePath) + "/" + std::string(key);
}

void LocalSandboxHandle::store_binary(std::string_view key, std::string_view sandbox_path) noexcept {
  if (!cache_) return;
  try {
    const std::string home = kSandboxHome;
    if (!sandbox_path.starts_with(home + "/") || sandbox_path.find("..") != std::string_view::npos) {
      throw std::runtime_error("only files under " + home + " can be cached, not " +
                               std::string(sandbox_path));
    }
    // The sandbox owns its home: the file or a folder above it may be a symlink planted to make
    // the daemon copy a host file into the cache. Only a regular file whose real path stays in
    // the sandbox's home is taken. (No sandbox process runs between the build and this copy: the
    // sandbox server kills every process after each command, so the check cannot be raced.)
    namespace fs = std::filesystem;
    const auto real_home = fs::canonical(host_home_);
    const auto real_file = fs::canonical(host_home_ + std::string(sandbox_path.substr(home.size())));
    const auto relative = real_file.lexically_relative(real_home);
    if (relative.empty() || *relative.begin() == ".." || !fs::is_regular_file(fs::symlink_status(real_file))) {
      throw std::runtime_error(std::string(sandbox_path) + " is not a regular file inside the sandbox's home");
    }
    cache_->store(key, real_file.string());
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: " + describe_error_chain(e));
  }
}

}  // namespace kg::sandbox
