#include "runtime_listing.hpp"

#include "daemon_config.hpp"
#include "error_chain.hpp"
#include "install_layout.hpp"
#include "plugin_config_check.hpp"
#include "response_json.hpp"
#include "runtime_choice.hpp"

namespace kg {

int describe_runtimes(const std::optional<std::string>& config_path, std::ostream& out,
                      std::ostream& err) {
  try {
    const config::DaemonConfig config = config::load_config(config_path).config;
    plugin_host::PluginRegistry plugins;
    std::vector<std::string> unreadable;
    read_plugin_declarations(resolve_plugin_dirs(config), plugins, unreadable);
    for (const auto& message : unreadable) err << "warning: " << message << '\n';
    const session::RuntimeOffer offer{plugins.runtime_names(), config.auto_order};
    auto states = session::describe_runtimes(
        offer, config.default_runtime, [&](const std::string& name) {
          const auto* plugin = plugins.find_runtime(name);
          return plugin ? plugin->description : std::string();
        });
    for (auto& state : states) {
      state.reason = "not checked: no daemon is running (it checks each plugin when it starts)";
    }
    out << api::runtimes_json(states, config.limits) << '\n';
    return 0;
  } catch (const std::exception& error) {
    err << "kode-gopherd: " << describe_error_chain(error) << '\n';
    return 1;
  }
}

}  // namespace kg
