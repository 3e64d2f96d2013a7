// `kode-gopherd --describe-runtimes`: the runtimes a daemon started with this config would offer
// (GET /v1/plugins' "runtimes", docs/daemon-api.md), from the descriptors of the plugins it
// would load, without creating them or starting anything. `kode-gopher serve` asks it when no
// daemon is running, so that execute_go_code's tools/list answer names the runtimes without
// starting a daemon for it. Main thread.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace kg {

// Prints {"runtimes": [...]} to `out`: every name calls could ask for, whether it is the default,
// what it does; `available` is false with the reason that nothing was started to check it. A
// plugin that cannot be read is a warning on `err`. Returns 0, or 1 (with the reason on `err`)
// when the config cannot be loaded. Never throws.
int describe_runtimes(const std::optional<std::string>& config_path, std::ostream& out,
                      std::ostream& err);

}  // namespace kg
