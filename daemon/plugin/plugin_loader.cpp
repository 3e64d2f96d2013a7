// PluginLoader, part 2: dlopen, the descriptor checks, create and the availability check.
#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>

#include "error_chain.hpp"
#include "plugin_load_error.hpp"
#include "plugin_loader.hpp"

namespace kg::plugin_host {
namespace {

struct HandleCloser {
  void operator()(void* handle) const noexcept { dlclose(handle); }
};
// Closes a handle whose plugin was refused before any of its objects were created.
using ClosingHandle = std::unique_ptr<void, HandleCloser>;

std::string last_dl_error() {
  const char* text = dlerror();
  return text != nullptr ? text : "the dynamic loader gave no reason";
}

// What a plugin threw, as one line; a plugin may throw anything, not only std::exception.
std::string describe_thrown(std::exception_ptr thrown) {
  try {
    std::rethrow_exception(thrown);
  } catch (const std::exception& error) {
    return describe_error_chain(error);
  } catch (...) {
    return "unknown exception";
  }
}

bool is_known(plugin::PluginKind kind) {
  return kind == plugin::PluginKind::runtime || kind == plugin::PluginKind::credentials;
}

// Refuses a descriptor the daemon cannot use. The ABI version is read before anything else:
// a plugin built against another layout must not have its other fields interpreted.
void check_descriptor(const plugin::PluginDescriptor* descriptor, const std::string& name,
                      const std::string& path) {
  const std::string where = "Plugin '" + name + "' at '" + path + "'";
  if (descriptor == nullptr) throw PluginLoadError(where + " returned no descriptor");
  if (descriptor->abi_version != plugin::kAbiVersion) {
    throw PluginLoadError(where + " was built for plugin ABI " +
                          std::to_string(descriptor->abi_version) + ", this daemon speaks " +
                          std::to_string(plugin::kAbiVersion));
  }
  if (!is_known(descriptor->kind)) {
    throw PluginLoadError(where + " has unknown kind " +
                          std::to_string(static_cast<std::uint32_t>(descriptor->kind)));
  }
  const bool has_create = descriptor->kind == plugin::PluginKind::runtime
                              ? descriptor->create_runtime != nullptr
                              : descriptor->create_credentials != nullptr;
  if (!has_create) {
    throw PluginLoadError(where + " declares kind " + std::string(to_string(descriptor->kind)) +
                          " but has no create function for it");
  }
  const std::string declared = descriptor->name != nullptr ? descriptor->name : "";
  if (declared != name) {
    throw PluginLoadError("Plugin file '" + path + "' declares the name '" + declared + "'");
  }
}

bool is_known(plugin::ConfigKeyType type) {
  return type >= plugin::ConfigKeyType::text && type <= plugin::ConfigKeyType::absolute_path;
}

// The runtime names and config keys the descriptor declares, copied out of the plugin's static
// storage. A runtime plugin must offer at least one runtime and a credentials plugin none; every
// name is a plugin-style name (lowercase letters, digits and '-'; keys also '_'), so it can be a
// `[runtime] default` value, a JSON Schema enum member and a config key as it is.
void copy_declarations(const plugin::PluginDescriptor& descriptor, const std::string& where,
                       LoadedPlugin& loaded) {
  if (descriptor.runtime_name_count > 0 && descriptor.runtime_names == nullptr) {
    throw PluginLoadError(where + " declares runtime names but gives none");
  }
  for (std::uint32_t i = 0; i < descriptor.runtime_name_count; ++i) {
    const char* name = descriptor.runtime_names[i];
    if (name == nullptr || !is_valid_plugin_name(name)) {
      throw PluginLoadError(where + " declares an invalid runtime name '" +
                            std::string(name != nullptr ? name : "") +
                            "': use lowercase letters, digits and '-'");
    }
    loaded.runtime_names.emplace_back(name);
  }
  if (descriptor.kind == plugin::PluginKind::runtime && loaded.runtime_names.empty()) {
    throw PluginLoadError(where + " is a runtime plugin but declares no runtime name");
  }
  if (descriptor.kind != plugin::PluginKind::runtime && !loaded.runtime_names.empty()) {
    throw PluginLoadError(where + " declares runtime names but is not a runtime plugin");
  }
  if (descriptor.config_key_count > 0 && descriptor.config_keys == nullptr) {
    throw PluginLoadError(where + " declares config keys but gives none");
  }
  for (std::uint32_t i = 0; i < descriptor.config_key_count; ++i) {
    const plugin::PluginConfigKey& key = descriptor.config_keys[i];
    const std::string name = key.name != nullptr ? key.name : "";
    const bool valid_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
    if (!valid_name) {
      throw PluginLoadError(where + " declares an invalid config key '" + name +
                            "': use lowercase letters, digits, '_' and '-'");
    }
    if (!is_known(key.type)) {
      throw PluginLoadError(where + " declares config key '" + name + "' of unknown type " +
                            std::to_string(static_cast<std::uint32_t>(key.type)));
    }
    DeclaredConfigKey declared{name, key.type, key.default_text != nullptr ? key.default_text : "",
                               key.help != nullptr ? key.help : "", {}, key.min, key.max};
    for (std::uint32_t c = 0; key.choices != nullptr && c < key.choice_count; ++c) {
      if (key.choices[c] != nullptr) declared.choices.emplace_back(key.choices[c]);
    }
    loaded.config_keys.push_back(std::move(declared));
  }
}

}  // namespace

LoadedPlugin PluginLoader::read_declarations(std::string_view name) const {
  const ResolvedFile file = resolve(name);
  const std::string name_text(name);
  const std::string where = "Plugin '" + name_text + "' at '" + file.path + "'";

  // The checked real path is what gets opened, so the file cannot be swapped for a symlink
  // between the check and the open.
  dlerror();
  ClosingHandle handle(dlopen(file.real_path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!handle) {
    throw PluginLoadError("Failed to load plugin '" + name_text + "' from '" + file.path +
                          "': " + last_dl_error());
  }
  void* symbol = dlsym(handle.get(), KG_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) throw PluginLoadError(where + " does not export " KG_PLUGIN_ENTRY_SYMBOL);
  const auto entry = reinterpret_cast<KgPluginEntryFn>(symbol);
  const plugin::PluginDescriptor* descriptor = entry();
  check_descriptor(descriptor, name_text, file.path);

  LoadedPlugin loaded;
  loaded.name = name_text;
  loaded.path = file.path;
  loaded.version = descriptor->version != nullptr ? descriptor->version : "";
  loaded.description = descriptor->description != nullptr ? descriptor->description : "";
  loaded.kind = descriptor->kind;
  copy_declarations(*descriptor, where, loaded);
  // From here on the plugin may make objects, threads or callbacks that point into its code,
  // even when create fails, so the library stays mapped for good.
  loaded.handle = handle.release();
  return loaded;
}

LoadedPlugin PluginLoader::load(std::string_view name, plugin::HostServices& host) const {
  LoadedPlugin loaded = read_declarations(name);
  const std::string where = "Plugin '" + loaded.name + "' at '" + loaded.path + "'";
  // Read again from the still-mapped library: the descriptor is static data of the plugin.
  const auto entry =
      reinterpret_cast<KgPluginEntryFn>(dlsym(loaded.handle, KG_PLUGIN_ENTRY_SYMBOL));
  const plugin::PluginDescriptor* descriptor = entry();

  try {
    if (loaded.kind == plugin::PluginKind::runtime) {
      loaded.runtime.reset(descriptor->create_runtime(host));
    } else {
      loaded.credentials.reset(descriptor->create_credentials(host));
    }
  } catch (...) {
    throw PluginLoadError(where + " failed to start: " + describe_thrown(std::current_exception()));
  }
  if (!loaded.runtime && !loaded.credentials) {
    throw PluginLoadError(where + " failed to start: its create function returned no object");
  }

  if (loaded.runtime) {
    plugin::Availability availability;
    try {
      availability = loaded.runtime->check_availability();
    } catch (...) {
      throw PluginLoadError(where + " failed its availability check: " +
                            describe_thrown(std::current_exception()));
    }
    if (!availability.available) {
      loaded.state = PluginState::unavailable;
      loaded.reason = availability.reason.empty() ? "the plugin gave no reason" : availability.reason;
    }
  }
  return loaded;
}

}  // namespace kg::plugin_host
