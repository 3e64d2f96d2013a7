// `kode-gopher sessions [--all] [--json]`: the daemon's sessions (GET /v1/sessions).
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {

namespace {

// "12", or "12 (1 refused)".
std::string api_text(const wire::daemon_api::Session& session) {
  std::string text = std::to_string(session.api_calls);
  if (session.api_calls_refused != 0) {
    text += " (" + std::to_string(session.api_calls_refused) + " refused)";
  }
  return text;
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

}  // namespace

std::string render_sessions(const wire::daemon_api::SessionsListing& listing, bool all) {
  // USER: the signed-in user a team-mode (HTTP) session belongs to; "-" for local sessions.
  // API: the Google API requests its calls made that the egress proxy read, and how many of
  // them the API policy refused (docs/api-policy.md, "The audit").
  TextTable table({"ID", "STATE", "CLIENT", "USER", "RUNTIME", "CALLS", "API", "OPENED_AT",
                   "IDENTITY"});
  for (const auto& session : listing.sessions) {
    table.add_row({session.id, session.state, session.client, or_dash(session.owner_email),
                   session.runtime, std::to_string(session.calls), api_text(session),
                   session.opened_at, or_dash(session.identity)});
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
      std::cout << (*json ? pretty_json(answer) + '\n'
                          : render_sessions(wire::daemon_api::decode_sessions_listing(answer),
                                            *all));
      return 0;
    };
  });
}

}  // namespace kg::cli
