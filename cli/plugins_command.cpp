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
  std::string out = table.empty() ? "no plugins loaded\n" : table.render();
  // The runtimes a call may ask for (exec --runtime, MCP runtime, [runtime] default).
  TextTable runtimes({"RUNTIME", "STATE", "NOTE"});
  const auto listed = answer.IsObject() ? answer.FindMember("runtimes") : answer.MemberEnd();
  if (answer.IsObject() && listed != answer.MemberEnd() && listed->value.IsArray()) {
    for (const auto& runtime : listed->value.GetArray()) {
      const auto available = runtime.FindMember("available");
      const bool ready = available != runtime.MemberEnd() && available->value.IsBool() &&
                         available->value.GetBool();
      const auto is_default = runtime.FindMember("default");
      const bool by_default = is_default != runtime.MemberEnd() && is_default->value.IsBool() &&
                              is_default->value.GetBool();
      std::string note = member_text(runtime, "reason", "");
      const auto chooses = runtime.FindMember("chooses");
      if (chooses != runtime.MemberEnd() && chooses->value.IsArray()) {
        std::string order;
        for (const auto& name : chooses->value.GetArray()) {
          if (name.IsString()) order += (order.empty() ? "" : ", else ") + std::string(name.GetString());
        }
        note = note.empty() ? order : order + "; " + note;
      }
      if (by_default) note = note.empty() ? "the default" : "the default; " + note;
      runtimes.add_row({member_text(runtime, "name"), ready ? "ready" : "unavailable", note});
    }
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
      std::cout << (*json ? pretty_json(answer) + '\n' : render_plugins(answer));
      return 0;
    };
  });
}

}  // namespace kg::cli
