// `kode-gopherd --describe-config`: the Markdown reference of the daemon's keys (its key table)
// and of the plugin sections, made from what the plugins this daemon would load declare
// (PluginDescriptor::config_keys), not from a table in the daemon. docs/configuration.md carries
// each between its markers (KEY TABLE, PLUGIN KEYS); scripts/update_config_docs.py writes them
// there and the plugins suite's config-docs test fails when they differ. Main thread.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "plugin_registry.hpp"

namespace kg {

// One "### `[name]`" part per plugin (sorted by name): its description, kind, runtime names and
// a table of its keys (key, allowed values, default, meaning).
std::string plugin_config_reference_markdown(const plugin_host::PluginRegistry& plugins);

// `kode-gopherd --describe-config`: reads the plugins of `config_path`'s [plugins] dirs (or the
// installed ones) without creating them and prints both references, each between its markers,
// to `out`; a plugin that cannot
// be read is a warning on `err`. Returns 0, or 1 (with the reason on `err`) when the config
// cannot be loaded. Never throws.
int describe_plugin_config(const std::optional<std::string>& config_path, std::ostream& out,
                           std::ostream& err);

}  // namespace kg
