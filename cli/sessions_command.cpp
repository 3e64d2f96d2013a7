// `kode-gopher sessions [--all] [--json]`: the daemon's sessions (GET /v1/sessions).
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {

namespace {

// "12", or "12 (1 refused)".
std::string api_text(const rapidjson::Value& session) {
  std::string text = member_text(session, "api_calls", "0");
  const std::string refused = member_text(session, "api_calls_refused", "0");
  if (refused != "0") text += " (" + refused + " refused)";
  return text;
}

}  // namespace

std::string render_sessions(const rapidjson::Value& answer, bool all) {
  // USER: the signed-in user a team-mode (HTTP) session belongs to; "-" for local sessions.
  // API: the Google API requests its calls made that the egress proxy read, and how many of
  // them the API policy refused (docs/api-policy.md, "The audit").
  TextTable table({"ID", "STATE", "CLIENT", "USER", "RUNTIME", "CALLS", "API", "OPENED_AT",
                   "IDENTITY"});
  const auto sessions = answer.IsObject() ? answer.FindMember("sessions") : answer.MemberEnd();
  if (answer.IsObject() && sessions != answer.MemberEnd() && sessions->value.IsArray()) {
    for (const auto& session : sessions->value.GetArray()) {
      table.add_row({member_text(session, "id"), member_text(session, "state"),
                     member_text(session, "client"), member_text(session, "owner_email", "-"),
                     member_text(session, "runtime"),
                     member_text(session, "calls"), api_text(session),
                     member_text(session, "opened_at"),
                     member_text(session, "identity", "-")});
    }
  }
  if (table.empty()) return all ? "no sessions\n" : "no open sessions\n";
  return table.render();
}

void add_sessions_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto all = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  CLI::App* sessions = app.add_subcommand("sessions", "List the daemon's open sessions");
  sessions->add_flag("--all", *all, "Include closed sessions (the newest 100)");
  sessions->add_flag("--json", *json, "Print the daemon's JSON");
  sessions->callback([&globals, &action, all, json] {
    action = [&globals, all, json] {
      const DaemonConnection connection = connect_to_daemon(globals, std::cerr);
      const rapidjson::Document answer =
          connection.client.get(*all ? "/v1/sessions?all=true" : "/v1/sessions");
      std::cout << (*json ? pretty_json(answer) + '\n' : render_sessions(answer, *all));
      return 0;
    };
  });
}

}  // namespace kg::cli
