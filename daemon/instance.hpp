// The daemon itself: owns, in start-up order, the logger, the state-dir lock, the store, the
// sandbox provider, the base cache, the plugins, the sessions and the API server, and tears them
// down in reverse. main() makes one and calls run() or prewarm() on the main thread.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "daemon_config.hpp"
#include "stderr_logger.hpp"

namespace kg {
namespace plugin_host {
class PluginRegistry;
}
namespace session {
class CallCredentials;
}
namespace store {
class Store;
}

struct InstanceOptions {
  std::optional<std::string> config_path;
  std::optional<std::string> socket_override;
  std::optional<std::string> http_listen_override;  // --http: [http] listen
  std::optional<std::string> log_level_override;    // --log-level: [daemon] log_level
};

class Instance {
 public:
  // Loads and validates the config; throws config::ConfigError.
  explicit Instance(const InstanceOptions& options);
  ~Instance();

  // Serves the daemon API until SIGTERM or SIGINT; returns the process exit code.
  // Throws (nested) when start-up fails.
  int run();
  // Builds the prewarmed Go build cache if it is not current, printing progress; exit code.
  int prewarm();

  const config::DaemonConfig& config() const noexcept { return config_; }

 private:
  struct Parts;
  void start_parts();
  // The credential plugin [credentials] plugin names, as the sessions ask it per call.
  std::unique_ptr<session::CallCredentials> make_call_credentials(
      plugin_host::PluginRegistry& plugins, store::Store& store);

  config::DaemonConfig config_;
  StderrLogger logger_;
  std::unique_ptr<Parts> parts_;
};

}  // namespace kg
