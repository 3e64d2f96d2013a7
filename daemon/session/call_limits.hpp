// The resource limits of a call: the daemon's [limits] (its maxima, also the defaults), lowered
// by what the call asks for; the run's wall clock may also be raised, up to
// [limits] max_run_timeout_ms. The toolchain's build runs under the daemon's limits; the user's
// program under the call's.
#pragma once

#include <cstdint>
#include <optional>

#include "daemon_config.hpp"
#include "runtime_plugin.hpp"

namespace kg::session {

// What a call may ask for (each optional; from the request's "limits" object).
struct RequestedLimits {
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint32_t> pids;
  std::optional<std::uint32_t> cpu_seconds;
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint32_t> open_files;
  std::optional<std::uint64_t> output_bytes;
};

// The daemon's own limits as one command's resources.
plugin::ResourceLimits resource_limits(const config::LimitsConfig& limits);

// The run phase's resources: the daemon's, lowered where the call asks. Throws
// plugin::InvalidInputError naming the limit and the daemon's maximum when a value is 0 or above it.
plugin::ResourceLimits run_limits(const config::LimitsConfig& limits, const RequestedLimits& requested);

// Bytes kept of each output stream: the daemon's, or less when the call asks. Throws like
// run_limits.
std::uint64_t output_limit(const config::LimitsConfig& limits, const RequestedLimits& requested);

// The run phase's wall clock: the call's timeout_ms, else the daemon's run_timeout_ms. Throws
// plugin::InvalidInputError naming max_run_timeout_ms when it is 0 or above that maximum.
std::uint32_t run_timeout(const config::LimitsConfig& limits,
                          const std::optional<std::uint32_t>& requested);

}  // namespace kg::session
