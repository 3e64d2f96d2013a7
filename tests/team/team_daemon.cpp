#include "team_daemon.hpp"

namespace kg::test {

TeamDaemon::TeamDaemon(const std::string& http_keys, const std::string& extra_sections) {
  port = free_loopback_port();
  url = "http://127.0.0.1:" + std::to_string(port);
  DaemonFixtureOptions options;
  options.extra_sections = "[http]\nlisten = 127.0.0.1:" + std::to_string(port) + "\n" +
                           http_keys + extra_sections;
  daemon = std::make_unique<DaemonFixture>(options);
  daemon->start();
}

std::string initialize_request() {
  return R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"team-test","version":"1"}}})";
}

}  // namespace kg::test
