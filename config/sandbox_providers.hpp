// The sandbox providers this build has (they are compiled in, not plugins): the config's key
// table accepts only these for [sandbox] provider. Runtime names are not here: the loaded
// runtime plugins declare them (daemon/plugin_api/plugin_abi.hpp, docs/architecture.md).
// Static, immutable data; any thread.
#pragma once

#include <array>
#include <string_view>

namespace kg::config {

// The sandbox providers this build has.
inline constexpr std::array<std::string_view, 2> kAvailableSandboxProviders = {"local",
                                                                              "kubernetes"};

}  // namespace kg::config
