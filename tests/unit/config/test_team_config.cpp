// The team-mode keys ([http], [oauth], [team]) and what they mean together (team_settings.hpp).
#include <doctest/doctest.h>

#include <map>

#include "config_keys.hpp"
#include "config_test_support.hpp"
#include "daemon_config.hpp"
#include "team_settings.hpp"

namespace kg::config {
namespace {

using test::TempDir;
using test::isolated_env;
using test::write_file;
using test::issues_for;

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& line : lines) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every team-mode key is read from the file") {
  TempDir dir;
  auto env = isolated_env("/home/tester");
  const auto file = write_file(dir / "kg.ini",
                               "[http]\n"
                               "listen = 0.0.0.0:8443\n"
                               "public_url = https://mcp.example.com:8443/\n"
                               "tls_certificate = /etc/kg/tls.crt\n"
                               "tls_key = /etc/kg/tls.key\n"
                               "trusted_proxy = true\n"
                               "allowed_origins = https://a.example, https://b.example\n"
                               "max_request_bytes = 1024\n"
                               "auth = oauth\n"
                               "[oauth]\n"
                               "issuer = https://login.example.com\n"
                               "client_id = kg-client\n"
                               "client_secret_file = /etc/kg/secret\n"
                               "scopes = openid email\n"
                               "allowed_users = a@example.com b@example.org\n"
                               "allowed_domains = example.com\n"
                               "access_token_ttl_s = 60\n"
                               "refresh_token_ttl_s = 3600\n"
                               "registrations_per_hour = 7\n"
                               "[team]\n"
                               "run_as = daemon\n"
                               "user_token_mode = sealed\n"
                               "max_sessions_per_user = 64\n"
                               "max_queued_per_user = 1\n"
                               "calls_per_minute = 6000\n"
                               "idle_timeout_s = 5\n"
                               "header_timeout_s = 3\n"
                               "keep_alive_s = 4\n"
                               "body_timeout_s = 6\n"
                               "max_connections_per_address = 100000\n"
                               "unauthenticated_per_minute = 1\n");
  const auto loaded = load_config(file);
  CHECK(loaded.warnings.empty());
  const DaemonConfig& config = loaded.config;
  const std::map<std::string, std::string> expected = {
      {"http.listen", "0.0.0.0:8443"},
      {"http.public_url", "https://mcp.example.com:8443/"},
      {"http.tls_certificate", "/etc/kg/tls.crt"},
      {"http.tls_key", "/etc/kg/tls.key"},
      {"http.trusted_proxy", "true"},
      {"http.allowed_origins", "https://a.example https://b.example"},
      {"http.max_request_bytes", "1024"},
      {"http.auth", "oauth"},
      {"oauth.issuer", "https://login.example.com"},
      {"oauth.client_id", "kg-client"},
      {"oauth.client_secret_file", "/etc/kg/secret"},
      {"oauth.scopes", "openid email"},
      {"oauth.allowed_users", "a@example.com b@example.org"},
      {"oauth.allowed_domains", "example.com"},
      {"oauth.access_token_ttl_s", "60"},
      {"oauth.refresh_token_ttl_s", "3600"},
      {"oauth.registrations_per_hour", "7"},
      {"team.run_as", "daemon"},
      {"team.user_token_mode", "sealed"},
      {"team.max_sessions_per_user", "64"},
      {"team.max_queued_per_user", "1"},
      {"team.calls_per_minute", "6000"},
      {"team.idle_timeout_s", "5"},
      {"team.header_timeout_s", "3"},
      {"team.keep_alive_s", "4"},
      {"team.body_timeout_s", "6"},
      {"team.max_connections_per_address", "100000"},
      {"team.unauthenticated_per_minute", "1"},
  };
  std::size_t checked = 0;
  for (const auto& spec : config_key_specs()) {
    if (spec.section != "http" && spec.section != "oauth" && spec.section != "team") continue;
    CAPTURE(spec.full_name());
    ++checked;
    REQUIRE(expected.count(spec.full_name()) == 1);
    CHECK(spec.current(config) == expected.at(spec.full_name()));
  }
  CHECK(checked == expected.size());
  CHECK(effective_public_url(config.http) == "https://mcp.example.com:8443");
}

TEST_CASE("the defaults: Google, its scopes, and http://<listen>") {
  const DaemonConfig defaults;
  CHECK(effective_issuer(defaults.oauth) == "https://accounts.google.com");
  CHECK(effective_scopes(defaults.oauth) ==
        std::vector<std::string>{"openid", "email", "https://www.googleapis.com/auth/cloud-platform"});
  HttpConfig http;
  http.listen = "127.0.0.1:8080";
  CHECK(effective_public_url(http) == "http://127.0.0.1:8080");
  http.tls_certificate = "/c";
  CHECK(effective_public_url(http) == "https://127.0.0.1:8080");
}

TEST_CASE("team settings that only make sense together are checked together") {
  TempDir dir;
  auto env = isolated_env("/home/tester");
  SUBCASE("without [http] listen nothing is checked") {
    CHECK(issues_for(dir, "[http]\nauth = none\n").empty());
  }
  SUBCASE("auth = none only on loopback") {
    CHECK(issues_for(dir, "[http]\nlisten = 127.0.0.1:8080\nauth = none\n").empty());
    const auto issues = issues_for(dir, "[http]\nlisten = 0.0.0.0:8080\nauth = none\ntrusted_proxy = true\n");
    CHECK(any_contains(issues, "http.auth: none lets everyone who can connect run code"));
  }
  SUBCASE("plain HTTP off loopback needs TLS or a trusted proxy") {
    const auto issues = issues_for(dir, "[http]\nlisten = 0.0.0.0:8080\n[oauth]\nclient_id = c\nallowed_domains = e.com\n");
    CHECK(any_contains(issues, "http.listen: 0.0.0.0:8080 is not loopback"));
  }
  SUBCASE("TLS needs both files") {
    const auto issues = issues_for(dir, "[http]\nlisten = 127.0.0.1:8443\ntls_certificate = /c.pem\n"
                                       "[oauth]\nclient_id = c\nallowed_domains = e.com\n");
    CHECK(any_contains(issues, "http.tls_key: HTTPS needs both"));
  }
  SUBCASE("oauth needs a client, openid, an https issuer and someone allowed") {
    auto issues = issues_for(dir, "[http]\nlisten = 127.0.0.1:8080\n");
    CHECK(any_contains(issues, "oauth.client_id: is required with [http] auth = oauth"));
    CHECK(any_contains(issues, "redirect URI http://127.0.0.1:8080/oauth/callback"));
    CHECK(any_contains(issues, "oauth.allowed_users: allowed_users and allowed_domains are both empty"));
    issues = issues_for(dir, "[http]\nlisten = 127.0.0.1:8080\n[oauth]\nclient_id = c\n"
                            "issuer = http://login.example.com\nscopes = email\nallowed_domains = e.com\n");
    CHECK(any_contains(issues, "oauth.issuer: must be the issuer's https:// URL"));
    CHECK(any_contains(issues, "oauth.scopes: must include openid"));
  }
  SUBCASE("user_token_mode: sealed needs the daemon's egress proxy; it means nothing to run_as = daemon") {
    const std::string team = "[http]\nlisten = 127.0.0.1:8080\n[oauth]\nclient_id = c\n"
                             "allowed_domains = e.com\n";
    CHECK(issues_for(dir, team).empty());  // sealed, auto network: the proxy unseals
    CHECK(issues_for(dir, team + "[team]\nuser_token_mode = access-token\n").empty());
    auto issues = issues_for(dir, team + "[sandbox]\nnetwork = egress\n");
    CHECK(any_contains(issues, "team.user_token_mode: sealed: programs get only a placeholder "
                               "token, and [sandbox] network = egress"));
    CHECK(issues_for(dir, team + "[sandbox]\nnetwork = egress\n[team]\nuser_token_mode = "
                                 "access-token\n").empty());
    issues = issues_for(dir, team + "[sandbox]\nprovider = kubernetes\n");
    CHECK(any_contains(issues, "without [kubernetes] egress_proxy_address"));
    CHECK_FALSE(any_contains(issues_for(dir, team + "[sandbox]\nprovider = kubernetes\n"
                                                    "[kubernetes]\negress_proxy_address = "
                                                    "kode-gopherd-egress:3128\n"),
                             "user_token_mode"));
    issues = issues_for(dir, team + "[team]\nrun_as = daemon\nuser_token_mode = access-token\n");
    CHECK(any_contains(issues, "team.user_token_mode: access-token has no effect with run_as = daemon"));
    issues = issues_for(dir, team + "[team]\nuser_token_mode = forwarded\n");
    CHECK(any_contains(issues, "user_token_mode"));
  }
  SUBCASE("public_url is an origin, no path") {
    const auto issues = issues_for(dir, "[http]\nlisten = 127.0.0.1:8080\nauth = none\n"
                                       "public_url = https://mcp.example.com/mcp\n");
    CHECK(any_contains(issues, "http.public_url: must be http(s)://host[:port] with no path"));
  }
}

}  // namespace kg::config

namespace kg::config {

TEST_CASE("--http checks the team settings again, naming itself") {
  DaemonConfig config;
  config.http.auth = "none";
  CHECK_NOTHROW(apply_http_listen(config, "127.0.0.1:8080"));
  CHECK(config.http.listen == "127.0.0.1:8080");
  try {
    apply_http_listen(config, "0.0.0.0:8080");
    FAIL("a non-loopback --http with auth = none was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("--http 0.0.0.0:8080: http.auth: none lets everyone") !=
          std::string::npos);
  }
}

}  // namespace kg::config

namespace kg::config {

TEST_CASE("the limits on slow and unknown clients refuse values out of range, naming the key") {
  TempDir dir;
  auto env = isolated_env("/home/tester");
  auto refused = [&](const std::string& text, const std::string& expected) {
    CAPTURE(text);
    try {
      load_config(write_file(dir / "kg.ini", text));
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
  };
  refused("[team]\nheader_timeout_s = 0\n", "team.header_timeout_s");
  refused("[team]\nheader_timeout_s = 301\n", "an integer from 1 to 300");
  refused("[team]\nkeep_alive_s = soon\n", "team.keep_alive_s");
  refused("[team]\nbody_timeout_s = 0\n", "team.body_timeout_s");
  refused("[team]\nmax_connections_per_address = 0\n", "team.max_connections_per_address");
  refused("[team]\nunauthenticated_per_minute = -5\n", "team.unauthenticated_per_minute");
  refused("[oauth]\nregistrations_per_hour = 0\n", "oauth.registrations_per_hour");
}

}  // namespace kg::config
