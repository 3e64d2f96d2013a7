// The runtimes and sandbox providers this build has: one list of each, and nothing offers a
// name that is not on it. The config's key table accepts only these for [runtime] default and
// [sandbox] provider, the daemon refuses a request naming another runtime, and
// `kode-gopher exec --runtime` and the MCP tool `execute_go_code` (its input and output schemas
// and its description) offer exactly these.
// Static, immutable data; any thread.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace kg::config {

// The runtime plugins that run code: a call's result names one of these as its runtime.
inline constexpr std::array<std::string_view, 2> kRuntimePlugins = {"compiled-go", "yaegi"};
// Not a plugin: the daemon runs yaegi when its static check finds the program safe for the
// interpreter, else compiled-go, and says why in the result's runtime_reason.
inline constexpr std::string_view kAutoRuntime = "auto";
// What a call or the config may ask for.
inline constexpr std::array<std::string_view, 3> kAvailableRuntimes = {"compiled-go", "yaegi",
                                                                       "auto"};
inline constexpr std::array<std::string_view, 2> kAvailableSandboxProviders = {"local",
                                                                              "kubernetes"};

// The names joined with ", " ("compiled-go"; "a, b"), for messages and help texts.
inline std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (const std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

inline bool is_available_runtime(std::string_view name) {
  for (const std::string_view runtime : kAvailableRuntimes) {
    if (runtime == name) return true;
  }
  return false;
}

// What every boundary (daemon API, MCP tool, CLI) says about a runtime not on the list.
inline std::string unavailable_runtime_message(std::string_view name) {
  return "runtime \"" + std::string(name) + "\" is not available; available runtimes: " +
         join_names(kAvailableRuntimes);
}

}  // namespace kg::config
