#include "binary_cache_host_service.hpp"

#include "error_chain.hpp"
#include "sandbox_paths.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

std::optional<std::string> BinaryCacheHostService::cached_binary(plugin::SandboxHandle& sandbox,
                                                                 std::string_view key) noexcept {
  try {
    auto* call = dynamic_cast<CallHandle*>(&sandbox);
    if (call == nullptr) return std::nullopt;
    const auto folder = call->host_folder(kSandboxBinaryCachePath);
    // The sandbox sees its owner's hits only: each one a link in its own folder.
    if (!folder || !cache_.link_into(call->owner(), key, *folder)) return std::nullopt;
    return std::string(kSandboxBinaryCachePath) + "/" + std::string(key);
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: " + describe_error_chain(e) + "; building");
  } catch (...) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: an unknown error; building");
  }
  return std::nullopt;
}

bool BinaryCacheHostService::holds_binary(plugin::SandboxHandle& sandbox,
                                          std::string_view key) noexcept {
  try {
    auto* call = dynamic_cast<CallHandle*>(&sandbox);
    return call != nullptr && call->host_folder(kSandboxBinaryCachePath) &&
           cache_.contains(call->owner(), key);
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: " + describe_error_chain(e));
  } catch (...) {
  }
  return false;
}

void BinaryCacheHostService::store_binary(plugin::SandboxHandle& sandbox, std::string_view key,
                                          std::string_view sandbox_path) noexcept {
  try {
    auto* call = dynamic_cast<CallHandle*>(&sandbox);
    if (call == nullptr) throw std::runtime_error("not stored: not a sandbox handle of this daemon");
    // Only what a clean-state build just made is anyone's to share: no earlier command of the
    // session could have touched its inputs.
    if (!call->last_command_built_clean()) {
      throw std::runtime_error("not stored: the last command was not a successful clean-state build");
    }
    auto taken = call->take_file(sandbox_path);
    if (!taken) return;  // the provider cannot take files out: no cache with it
    if (taken->frozen) {
      // The descriptor keeps this very file, whatever the program does to the path: the copy
      // can wait until the call has returned.
      cache_.store_later(call->owner(), std::string(key), std::move(taken->file));
      return;
    }
    cache_.store(call->owner(), key, "/proc/self/fd/" + std::to_string(taken->file.get()));
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: " + describe_error_chain(e));
  } catch (...) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: an unknown error; not stored");
  }
}

}  // namespace kg::sandbox
