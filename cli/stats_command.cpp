// `kode-gopher stats [--json]`: session and call counts and timing percentiles (GET /v1/stats).
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {
namespace {

const rapidjson::Value& member_or_null(const rapidjson::Value& object, const char* name) {
  static const rapidjson::Value kNull;
  if (!object.IsObject()) return kNull;
  const auto found = object.FindMember(name);
  return found == object.MemberEnd() ? kNull : found->value;
}

}  // namespace

std::string render_stats(const rapidjson::Value& stats) {
  const rapidjson::Value& sessions = member_or_null(stats, "sessions");
  const rapidjson::Value& calls = member_or_null(stats, "calls");
  std::string out = "sessions: " + member_text(sessions, "open", "0") + " open, " +
                    member_text(sessions, "total", "0") + " total\n";
  out += "calls: " + member_text(calls, "total", "0") + " total";
  const rapidjson::Value& by_status = member_or_null(calls, "by_status");
  if (by_status.IsObject() && by_status.MemberCount() > 0) {
    std::string separator = " (";
    for (const auto& status : by_status.GetObject()) {
      out += separator + status.name.GetString() + ' ' +
             member_text(by_status, status.name.GetString());
      separator = ", ";
    }
    out += ')';
  }
  out += '\n';

  TextTable table({"RUNTIME", "METRIC", "COUNT", "P50_MS", "P95_MS"});
  const rapidjson::Value& timings = member_or_null(stats, "timings");
  if (timings.IsArray()) {
    for (const auto& row : timings.GetArray()) {
      table.add_row({member_text(row, "runtime"), member_text(row, "metric"),
                     member_text(row, "count"), member_text(row, "p50"), member_text(row, "p95")});
    }
  }
  if (!table.empty()) out += '\n' + table.render();
  return out;
}

void add_stats_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto json = std::make_shared<bool>(false);
  CLI::App* stats = app.add_subcommand("stats", "Show session and call counts and timings");
  stats->add_flag("--json", *json, "Print the daemon's JSON");
  stats->callback([&globals, &action, json] {
    action = [&globals, json] {
      const DaemonConnection connection = connect_to_daemon(globals, std::cerr);
      const rapidjson::Document answer = connection.client.get("/v1/stats");
      std::cout << (*json ? pretty_json(answer) + '\n' : render_stats(answer));
      return 0;
    };
  });
}

}  // namespace kg::cli
