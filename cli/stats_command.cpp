// `kode-gopher stats [--json]`: session and call counts and timing percentiles (GET /v1/stats).
#include <iostream>

#include "commands.hpp"
#include "daemon_connection.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

namespace kg::cli {

std::string render_stats(const wire::daemon_api::Stats& stats) {
  std::string out = "sessions: " + std::to_string(stats.open_sessions) + " open, " +
                    std::to_string(stats.total_sessions) + " total\n";
  out += "calls: " + std::to_string(stats.total_calls) + " total";
  if (!stats.calls_by_status.empty()) {
    std::string separator = " (";
    for (const auto& [status, count] : stats.calls_by_status) {
      out += separator + status + ' ' + std::to_string(count);
      separator = ", ";
    }
    out += ')';
  }
  out += '\n';

  TextTable table({"RUNTIME", "METRIC", "COUNT", "P50_MS", "P95_MS"});
  for (const auto& row : stats.timings) {
    table.add_row({row.runtime, row.metric, std::to_string(row.count), std::to_string(row.p50),
                   std::to_string(row.p95)});
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
      std::cout << (*json ? pretty_json(answer) + '\n'
                          : render_stats(wire::daemon_api::decode_stats(answer)));
      return 0;
    };
  });
}

}  // namespace kg::cli
