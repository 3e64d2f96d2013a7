// A DaemonFixture serving MCP over streamable HTTP on a free loopback port, for the team suite.
#pragma once

#include <memory>
#include <string>

#include "daemon_fixture.hpp"
#include "http_probe.hpp"
#include "../support/temp_dir.hpp"

namespace kg::test {

struct TeamDaemon {
  // extra: more config lines; [http] and [team] keys given here follow the defaults below.
  // https: serve TLS with a self-signed certificate for 127.0.0.1 made for the test
  // (certificate_path then names it, for clients to trust).
  // runs_programs false: the test runs no Go program, so the daemon gets an empty build cache
  // of its own rather than waiting for the shared one to be prewarmed.
  // sandbox_keys: more [sandbox] lines.
  explicit TeamDaemon(const std::string& http_keys = "auth = none\n",
                      const std::string& extra_sections = "", bool https = false,
                      bool runs_programs = true, const std::string& sandbox_keys = "");

  int port = 0;
  std::string url;  // http(s)://127.0.0.1:PORT
  std::string certificate_path;
  // Holds the TLS certificate and key of an https daemon; removed with the fixture.
  std::unique_ptr<TempDir> tls_dir;
  std::unique_ptr<DaemonFixture> daemon;
  HttpProbe probe() const { return HttpProbe("127.0.0.1", port); }
};

// The JSON of an initialize request (2025-11-25) with id 1.
std::string initialize_request();

}  // namespace kg::test
