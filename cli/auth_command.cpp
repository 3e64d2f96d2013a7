// `kode-gopher auth status [--json]`: which Google identity programs run as (GET /v1/auth): the
// mode, credential type, email, project, token expiry, and when something is wrong, what and
// how to log in; in team mode with [team] run_as = user, that signed-in users' calls run as
// their own identity (docs/team-mode.md). Exits 1 when programs without a signed-in user get no
// working credentials.
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "exit_codes.hpp"
#include "json_text.hpp"

namespace kg::cli {

std::string render_auth_status(const wire::daemon_api::AuthStatus& status) {
  std::string out;
  auto line = [&](const char* label, const std::string& value) {
    if (!value.empty()) out += std::string(label) + ": " + value + "\n";
  };
  out += "mode: " + (status.mode.empty() ? std::string("none") : status.mode);
  if (!status.plugin.empty() && status.plugin != "none") out += " (" + status.plugin + ")";
  out += "\n";
  line("credential type", status.credential_type);
  line("email", status.email);
  line("project", status.project_id);
  line("quota project", status.quota_project_id);
  line("token expiry", status.token_expiry);
  line("source", status.source);
  line("sealed", status.sealed);
  line("program holds", status.program_holds);
  line("problem", status.problem);
  line("to log in", status.login_hint);
  if (!status.signed_in_users_mode.empty()) {
    out += "signed-in users: each user's calls run as that user's own Google identity, mode " +
           status.signed_in_users_mode +
           " ([team] run_as = user; the lines above are for calls without a signed-in user)\n";
  }
  return out;
}

void add_auth_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  CLI::App* auth = app.add_subcommand("auth", "Google credentials of the programs the daemon runs");
  auth->require_subcommand(1);
  auto json = std::make_shared<bool>(false);
  CLI::App* status = auth->add_subcommand(
      "status", "Show the identity programs run as (mode, type, email, project, token expiry)");
  status->add_flag("--json", *json, "Print the daemon's JSON");
  status->callback([&globals, &action, json] {
    action = [&globals, json] {
      const DaemonConnection connection = connect_to_daemon(globals, std::cerr);
      const rapidjson::Document answer = connection.client.get("/v1/auth");
      const wire::daemon_api::AuthStatus status = wire::daemon_api::decode_auth_status(answer);
      std::cout << (*json ? pretty_json(answer) + '\n' : render_auth_status(status));
      return status.usable() ? to_int(ExitCode::ok) : to_int(ExitCode::program_failed);
    };
  });
}

}  // namespace kg::cli
