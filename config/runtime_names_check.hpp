// The checks of the keys that name runtimes ([runtime] default and auto_order). Runtime names are
// not compiled into the daemon: each runtime plugin declares its own in its descriptor
// (daemon/plugin_api/plugin_abi.hpp), so these checks run once the plugins are known, like the
// plugin sections' (plugin_section_check.hpp): at the daemon's start after loading them, and in
// `kode-gopherd --check-config`. Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "daemon_config.hpp"

namespace kg::config {

// Each at its key's line: errors for a default no plugin offers (or auto when there is no auto)
// and an auto_order that is not two different names; a warning for an auto_order naming a
// runtime no loaded plugin offers (then calls cannot ask for auto).
std::vector<ConfigIssue> runtime_name_issues(const DaemonConfig& config,
                                             const std::vector<std::string>& offered_runtimes);

}  // namespace kg::config
