// `kode-gopher plugins [--json]`: what the daemon loaded (GET /v1/plugins).
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {

std::string render_plugins(const rapidjson::Value& answer) {
  TextTable table({"NAME", "KIND", "VERSION", "STATE", "REASON/PATH"});
  const auto plugins = answer.IsObject() ? answer.FindMember("plugins") : answer.MemberEnd();
  if (answer.IsObject() && plugins != answer.MemberEnd() && plugins->value.IsArray()) {
    for (const auto& plugin : plugins->value.GetArray()) {
      // An unavailable plugin says why; a ready one says where it was loaded from.
      const std::string reason = member_text(plugin, "reason", "");
      table.add_row({member_text(plugin, "name"), member_text(plugin, "kind"),
                     member_text(plugin, "version"), member_text(plugin, "state"),
                     reason.empty() ? member_text(plugin, "path") : reason});
    }
  }
  if (table.empty()) return "no plugins loaded\n";
  return table.render();
}

void add_plugins_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto json = std::make_shared<bool>(false);
  CLI::App* plugins = app.add_subcommand("plugins", "List the daemon's plugins and their state");
  plugins->add_flag("--json", *json, "Print the daemon's JSON");
  plugins->callback([&globals, &action, json] {
    action = [&globals, json] {
      const DaemonConnection connection = connect_to_daemon(globals, std::cerr);
      const rapidjson::Document answer = connection.client.get("/v1/plugins");
      std::cout << (*json ? pretty_json(answer) + '\n' : render_plugins(answer));
      return 0;
    };
  });
}

}  // namespace kg::cli
