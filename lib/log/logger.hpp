// The logging interface every program shares: the daemon's StderrLogger implements it, the
// plugin ABI lends it to plugins (daemon/plugin_api/host_services.hpp names it kg::plugin::Logger),
// and the sandbox server logs through it. Part of the plugin ABI: its layout and the values of
// LogLevel change only with a new ABI version (docs/architecture.md, "Plugin loading policy").
#pragma once

#include <string_view>

namespace kg::log {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

// Thread-safe; never throws.
class Logger {
 public:
  virtual ~Logger() = default;
  virtual void log(LogLevel level, std::string_view message) noexcept = 0;
};

}  // namespace kg::log
