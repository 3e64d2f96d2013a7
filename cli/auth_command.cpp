// `kode-gopher auth status [--json]`: which Google identity programs run as (GET /v1/auth): the
// mode, credential type, email, project, token expiry, and when something is wrong, what and
// how to log in. Exits 1 when programs get no working credentials.
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "exit_codes.hpp"
#include "json_text.hpp"

namespace kg::cli {

bool auth_usable(const rapidjson::Value& status) {
  return member_text(status, "mode", "none") != "none" && member_text(status, "problem", "").empty();
}

std::string render_auth_status(const rapidjson::Value& status) {
  std::string out;
  auto line = [&](const char* label, const char* key) {
    const std::string value = member_text(status, key, "");
    if (!value.empty()) out += std::string(label) + ": " + value + "\n";
  };
  out += "mode: " + member_text(status, "mode", "none");
  const std::string plugin = member_text(status, "plugin", "");
  if (!plugin.empty() && plugin != "none") out += " (" + plugin + ")";
  out += "\n";
  line("credential type", "credential_type");
  line("email", "email");
  line("project", "project_id");
  line("quota project", "quota_project_id");
  line("token expiry", "token_expiry");
  line("source", "source");
  line("sealed", "sealed");
  line("problem", "problem");
  line("to log in", "login_hint");
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
      std::cout << (*json ? pretty_json(answer) + '\n' : render_auth_status(answer));
      return auth_usable(answer) ? to_int(ExitCode::ok) : to_int(ExitCode::program_failed);
    };
  });
}

}  // namespace kg::cli
