#include "call_limits.hpp"

#include <string>

namespace kg::session {
namespace {

template <typename T>
T within(const std::optional<T>& wanted, T maximum, const char* name, const char* config_key) {
  if (!wanted) return maximum;
  if (*wanted == 0 || *wanted > maximum) {
    throw plugin::InvalidInputError("limits." + std::string(name) + " must be from 1 to " +
                                    std::to_string(maximum) + " (the daemon's " + config_key +
                                    "), got " + std::to_string(*wanted));
  }
  return *wanted;
}

}  // namespace

plugin::ResourceLimits resource_limits(const config::LimitsConfig& limits) {
  plugin::ResourceLimits resources;
  resources.memory_bytes = limits.memory_bytes;
  resources.pids = limits.pids;
  resources.cpu_seconds = limits.cpu_seconds;
  resources.file_size_bytes = limits.file_size_bytes;
  resources.open_files = limits.open_files;
  return resources;
}

plugin::ResourceLimits run_limits(const config::LimitsConfig& limits, const RequestedLimits& requested) {
  plugin::ResourceLimits resources;
  resources.memory_bytes =
      within(requested.memory_bytes, limits.memory_bytes, "memory_bytes", "limits.memory_bytes");
  resources.pids = within(requested.pids, limits.pids, "pids", "limits.pids");
  resources.cpu_seconds =
      within(requested.cpu_seconds, limits.cpu_seconds, "cpu_seconds", "limits.cpu_seconds");
  resources.file_size_bytes = within(requested.file_size_bytes, limits.file_size_bytes,
                                     "file_size_bytes", "limits.file_size_bytes");
  resources.open_files =
      within(requested.open_files, limits.open_files, "open_files", "limits.open_files");
  return resources;
}

std::uint64_t output_limit(const config::LimitsConfig& limits, const RequestedLimits& requested) {
  return within(requested.output_bytes, limits.output_bytes, "output_bytes", "limits.output_bytes");
}

std::uint32_t run_timeout(const config::LimitsConfig& limits,
                          const std::optional<std::uint32_t>& requested) {
  if (!requested) return limits.run_timeout_ms;
  if (*requested == 0 || *requested > limits.max_run_timeout_ms) {
    throw plugin::InvalidInputError(
        "timeout_ms must be from 1 to " + std::to_string(limits.max_run_timeout_ms) +
        " (the daemon's [limits] max_run_timeout_ms), got " + std::to_string(*requested) +
        "; ask for at most " + std::to_string(limits.max_run_timeout_ms) +
        " ms, or leave timeout_ms out for the default of " + std::to_string(limits.run_timeout_ms) +
        " ms ([limits] run_timeout_ms)");
  }
  return *requested;
}

}  // namespace kg::session
