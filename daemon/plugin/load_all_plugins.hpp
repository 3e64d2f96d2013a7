// Loads every plugin the loader can discover into the registry, for the daemon's start-up.
// Policy (docs/architecture.md): a plugin that fails to load or says it cannot work here is logged
// and skipped; the daemon keeps going with the others.
#pragma once

#include <cstddef>

#include "host_services.hpp"
#include "plugin_loader.hpp"
#include "plugin_registry.hpp"

namespace kg::plugin_host {

// Called once by Instance on the start-up thread. For each discovered name, logs one of
//   info  "Plugin '<name>' <version> loaded from <path>"       (added, ready)
//   warn  "Plugin '<name>' disabled: <reason>"                 (added, unavailable)
//   warn  "Plugin '<name>' not loaded: <PluginLoadError text>" (not added)
// Returns the number of ready plugins added. `host` must outlive `registry`. Throws only what
// allocation throws.
std::size_t load_all(const PluginLoader& loader, PluginRegistry& registry,
                     plugin::HostServices& host, plugin::Logger& logger);

}  // namespace kg::plugin_host
