#include "team_daemon.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

namespace kg::test {

TeamDaemon::TeamDaemon(const std::string& http_keys, const std::string& extra_sections,
                       bool https, bool runs_programs, const std::string& sandbox_keys) {
  port = free_loopback_port();
  url = std::string(https ? "https" : "http") + "://127.0.0.1:" + std::to_string(port);
  std::string tls_keys;
  if (https) {
    tls_dir = std::make_unique<TempDir>("team-tls-");
    const std::string dir = tls_dir->path();
    certificate_path = dir + "/cert.pem";
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " + dir + "/key.pem -out " +
        certificate_path + " 2>/dev/null";
    REQUIRE_MESSAGE(std::system(command.c_str()) == 0, "openssl could not make a certificate");
    tls_keys = "tls_certificate = " + certificate_path + "\ntls_key = " + dir + "/key.pem\n";
  }
  DaemonFixtureOptions options;
  options.empty_base_cache = !runs_programs;
  options.extra_sandbox_keys = sandbox_keys;
  options.extra_sections = "[http]\nlisten = 127.0.0.1:" + std::to_string(port) + "\n" +
                           tls_keys + http_keys + extra_sections;
  daemon = std::make_unique<DaemonFixture>(options);
  daemon->start();
}

std::string initialize_request() {
  return R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"team-test","version":"1"}}})";
}

}  // namespace kg::test
