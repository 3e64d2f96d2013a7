// `kode-gopher api-calls SESSION [--json]`: the audit of a session after the fact (GET
// /v1/sessions/{id}/api_calls; docs/api-policy.md, "The audit"): every Google API request its
// calls made that the egress proxy read, forwarded or refused, as the daemon recorded it, open
// or closed session alike. `kode-gopher sessions` shows each session's count; this lists them.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "form_encoding.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {
namespace {

// The HTTP status, or "grpc=N" when a gRPC status came (as exec's api calls lines say it).
std::string status_text(const wire::daemon_api::AuditedApiCall& call) {
  return call.grpc_status ? "grpc=" + std::to_string(*call.grpc_status)
                          : std::to_string(call.http_status);
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

}  // namespace

std::string render_session_api_calls(const wire::daemon_api::SessionApiCalls& answer) {
  std::string out = "session " + answer.session_id + ": " + std::to_string(answer.count) +
                    (answer.count == 1 ? " API request" : " API requests");
  if (answer.refused != 0) out += " (" + std::to_string(answer.refused) + " refused)";
  if (answer.dropped != 0) {
    out += "; " + std::to_string(answer.dropped) +
           " more past the egress proxy's bound per call were counted, not recorded";
  }
  out += '\n';
  if (answer.api_calls.empty()) return out;
  // REFUSED: the rule (read_only, projects, buckets, proxy); the message the program got follows
  // on the next line, indented.
  TextTable table({"CALL", "RECORDED_AT", "SERVICE", "METHOD", "RESOURCE", "STATUS", "MS", "BYTES",
                   "REFUSED"});
  for (const auto& call : answer.api_calls) {
    table.add_row({std::to_string(call.call_id), call.recorded_at, call.service, call.method,
                   or_dash(call.resource), status_text(call),
                   std::to_string(call.duration_us / 1000),
                   std::to_string(call.request_bytes + call.response_bytes),
                   or_dash(call.refused_rule)});
  }
  out += table.render();
  for (const auto& call : answer.api_calls) {
    if (call.refusal.empty()) continue;
    out += "refused in call " + std::to_string(call.call_id) + ": " + call.refusal + '\n';
  }
  if (answer.count > answer.api_calls.size()) {
    out += "... " + std::to_string(answer.count - answer.api_calls.size()) +
           " more (the first " + std::to_string(answer.api_calls.size()) +
           " are listed; the daemon's SQLite database holds them all, docs/api-policy.md)\n";
  }
  return out;
}

void add_api_calls_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto session_id = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* api_calls = app.add_subcommand(
      "api-calls", "List the Google API requests a session's calls made (the egress proxy's "
                   "audit), open or closed");
  api_calls->add_option("session", *session_id, "The session's id (see `kode-gopher sessions --all`)")
      ->required()
      ->type_name("SESSION");
  api_calls->add_flag("--json", *json, "Print the daemon's JSON");
  api_calls->callback([&globals, &action, session_id, json] {
    action = [&globals, session_id, json] {
      const DaemonConnection connection = connect_to_daemon(globals, std::cerr);
      const rapidjson::Document answer = connection.client.get(
          "/v1/sessions/" + net::percent_encode(*session_id) + "/api_calls");
      std::cout << (*json ? pretty_json(answer) + '\n'
                          : render_session_api_calls(
                                wire::daemon_api::decode_session_api_calls(answer)));
      return 0;
    };
  });
}

}  // namespace kg::cli
