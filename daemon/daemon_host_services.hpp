// The HostServices every plugin gets: the daemon's logger, the plugin's own config section, the
// toolchain facts, and the Go side's binary cache and go mod tidy (daemon/gocache; null with a
// provider whose sandboxes cannot receive host folders). One per daemon, owned by Instance,
// outlives every plugin.
#pragma once

#include <map>
#include <string>

#include "host_services.hpp"

namespace kg {

class DaemonHostServices final : public plugin::HostServices {
 public:
  DaemonHostServices(plugin::Logger& logger,
                     std::map<std::string, std::map<std::string, std::string>> sections,
                     plugin::BinaryCacheService* binary_cache, plugin::ModuleTidyService* module_tidy,
                     plugin::ToolchainInfo toolchain)
      : logger_(logger),
        sections_(std::move(sections)),
        binary_cache_(binary_cache),
        module_tidy_(module_tidy),
        toolchain_(std::move(toolchain)) {}

  plugin::Logger& logger() noexcept override { return logger_; }
  const plugin::ToolchainInfo& toolchain() const noexcept override { return toolchain_; }
  plugin::BinaryCacheService* binary_cache() noexcept override { return binary_cache_; }
  plugin::ModuleTidyService* module_tidy() noexcept override { return module_tidy_; }

  std::optional<std::string> config_value(std::string_view key) const override {
    const auto dot = key.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    auto section = sections_.find(std::string(key.substr(0, dot)));
    if (section == sections_.end()) return std::nullopt;
    auto it = section->second.find(std::string(key.substr(dot + 1)));
    if (it == section->second.end()) return std::nullopt;
    return it->second;
  }

 private:
  plugin::Logger& logger_;
  std::map<std::string, std::map<std::string, std::string>> sections_;
  plugin::BinaryCacheService* binary_cache_;
  plugin::ModuleTidyService* module_tidy_;
  plugin::ToolchainInfo toolchain_;
};

}  // namespace kg
