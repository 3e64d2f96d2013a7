// `kode-gopher plugins [--json]`: what the daemon loaded (GET /v1/plugins).
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {

std::string render_plugins(const wire::daemon_api::PluginsListing& listing) {
  TextTable table({"NAME", "KIND", "VERSION", "STATE", "REASON/PATH"});
  for (const auto& plugin : listing.plugins.value_or(std::vector<wire::daemon_api::PluginEntry>{})) {
    // An unavailable plugin says why; a ready one says where it was loaded from.
    table.add_row({plugin.name, plugin.kind, plugin.version, plugin.state,
                   plugin.reason.empty() ? plugin.path : plugin.reason});
  }
  std::string out = table.empty() ? "no plugins loaded\n" : table.render();
  // The runtimes a call may ask for (exec --runtime, MCP runtime, [runtime] default).
  TextTable runtimes({"RUNTIME", "STATE", "NOTE"});
  for (const auto& runtime : listing.runtimes) {
    std::string note = runtime.reason;
    std::string order;
    for (const auto& name : runtime.chooses) order += (order.empty() ? "" : ", else ") + name;
    if (!order.empty()) note = note.empty() ? order : order + "; " + note;
    if (runtime.is_default) note = note.empty() ? "the default" : "the default; " + note;
    runtimes.add_row({runtime.name, runtime.available ? "ready" : "unavailable", note});
  }
  if (!runtimes.empty()) out += "\n" + runtimes.render();
  return out;
}

void add_plugins_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto json = std::make_shared<bool>(false);
  CLI::App* plugins = app.add_subcommand("plugins", "List the daemon's plugins and their state");
  plugins->add_flag("--json", *json, "Print the daemon's JSON");
  plugins->callback([&globals, &action, json] {
    action = [&globals, json] {
      const DaemonConnection connection = connect_to_daemon(globals, std::cerr);
      const rapidjson::Document answer = connection.client.get("/v1/plugins");
      std::cout << (*json ? pretty_json(answer) + '\n'
                          : render_plugins(wire::daemon_api::decode_plugins_listing(answer)));
      return 0;
    };
  });
}

}  // namespace kg::cli
