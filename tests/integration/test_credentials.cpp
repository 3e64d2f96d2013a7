// Credentials end to end: the real daemon with the real creds-adc plugin (loaded through the
// plugin loader), minting against Google's endpoints played on loopback in this process
// (tests/support/loopback_google); `kode-gopher auth status`, GET /v1/auth, the SQLite record
// of every token handed out; and, through the sandbox's metadata emulator, a program that
// reads its token with golang.org/x/oauth2/google and gets exactly the host-minted one, with
// no refresh token, key or ADC file anywhere it can look.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon_fixture.hpp"
#include "loopback_google.hpp"

using kg::test::DaemonFixture;
using kg::test::DaemonFixtureOptions;
using kg::test::json_string;
using kg::test::LoopbackGoogle;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string adc_json(const LoopbackGoogle& google) {
  return R"({"type": "authorized_user", "client_id": ")" + google.client_id +
         R"(", "client_secret": ")" + google.client_secret + R"(", "refresh_token": ")" +
         google.refresh_token + R"("})";
}

// A daemon whose creds-adc reads `adc_file` and talks to `google`. Its sandboxes have no
// network: the token reaches the program through the sandbox's own metadata emulator (mode
// access-token, the explicit opt-in; sealed mode is tested with the egress proxy in
// tests/hostile/test_hostile_egress_credentials.cpp and test_hostile_egress_sealed.cpp).
DaemonFixtureOptions creds_options(const LoopbackGoogle& google, const std::string& adc_file) {
  DaemonFixtureOptions options;
  options.extra_plugin_dirs = {kg::test::required_env("KG_CREDS_ADC_PLUGIN_DIR")};
  options.extra_sandbox_keys = "network = none\n";
  options.extra_sections = "[credentials]\nplugin = creds-adc\n[creds-adc]\nmode = access-token\n" +
                           (adc_file.empty() ? std::string() : "adc_file = " + adc_file + "\n") +
                           "project = test-project\n"
                           "token_url = " + google.token_url() + "\n"
                           "tokeninfo_url = " + google.tokeninfo_url() + "\n"
                           "userinfo_url = " + google.userinfo_url() + "\n";
  return options;
}

std::string write_adc(const DaemonFixture& daemon, const LoopbackGoogle& google) {
  const std::string path = daemon.dir() + "/adc/application_default_credentials.json";
  std::filesystem::create_directories(daemon.dir() + "/adc");
  std::ofstream(path) << adc_json(google);
  return path;
}

// Starts the daemon with HOME pointing at an empty folder and no Google variables, so that
// only what the test configures can be found (and GCE_METADATA_HOST when given); the test
// process's own environment is restored.
void start_isolated(DaemonFixture& daemon, const std::string& metadata_host = "") {
  const std::string home = daemon.dir() + "/home";
  std::filesystem::create_directories(home);
  const char* names[] = {"HOME", "GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG",
                         "GOOGLE_CLOUD_PROJECT", "GCE_METADATA_HOST"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* name : names) {
    const char* value = std::getenv(name);
    saved.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
    ::unsetenv(name);
  }
  ::setenv("HOME", home.c_str(), 1);
  if (!metadata_host.empty()) ::setenv("GCE_METADATA_HOST", metadata_host.c_str(), 1);
  daemon.start();
  for (const auto& [name, value] : saved) {
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
}

std::string hex(const std::string& text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs, in the session's sandbox, a program that looks for the ADC's secrets wherever a program
// can: every process's environment and arguments, and the files (names and contents) of every
// writable or configurable place; and whether the host's ADC file is visible.
struct SecretScan {
  std::vector<std::string> hits;
  bool host_adc_visible = true;
};

SecretScan secrets_visible_in_sandbox(DaemonFixture& daemon, const std::string& session,
                                      const LoopbackGoogle& google, const std::string& adc) {
  const auto scan = daemon.execute(session, R"go(package snippet

import (
	"context"
	hexenc "encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func run(ctx context.Context) (any, error) {
	// Hex, so that this source (in /app) and its binary do not contain what they look for.
	var secrets []string
	for _, h := range []string{")go" + hex(google.refresh_token) + R"go(", ")go" + hex(google.client_secret) +
                           R"go(", ")go" + hex("PRIVATE KEY-----") + R"go(", ")go" +
                           hex("application_default_credentials") + R"go("} {
		b, _ := hexenc.DecodeString(h)
		secrets = append(secrets, string(b))
	}
	hits := []string{}
	check := func(where string, data []byte) {
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				hits = append(hits, where+": "+s)
			}
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		for _, f := range []string{"environ", "cmdline"} {
			if data, err := os.ReadFile(p + "/" + f); err == nil {
				check(p+"/"+f, data)
			}
		}
	}
	home, _ := os.UserHomeDir()
	for _, root := range []string{"/app", "/tmp", "/etc", "/run", "/var", "/dev/shm", "/root", "/home", home} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			check(path+" (name)", []byte(path))
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() && info.Size() < 4<<20 {
				if data, err := os.ReadFile(path); err == nil {
					check(path, data)
				}
			}
			return nil
		})
	}
	adc, _ := hexenc.DecodeString(")go" + hex(adc) + R"go(")
	_, err := os.Stat(string(adc))
	return map[string]any{"hits": hits, "host_adc_visible": err == nil}, nil
}
)go");
  INFO(json_string(scan, "stderr"));
  REQUIRE(json_string(scan, "status") == "ok");
  const auto& value = scan["result"]["value"];
  REQUIRE(value["hits"].IsArray());
  SecretScan result;
  for (const auto& hit : value["hits"].GetArray()) result.hits.emplace_back(hit.GetString());
  result.host_adc_visible = value["host_adc_visible"].GetBool();
  return result;
}

}  // namespace

TEST_CASE("auth status names the identity on the CLI and the daemon API") {
  LoopbackGoogle google;
  DaemonFixture probe;  // only for a folder to keep the ADC in
  const std::string adc = write_adc(probe, google);
  DaemonFixture daemon(creds_options(google, adc));
  start_isolated(daemon);

  const auto auth = daemon.json(daemon.get("/v1/auth"));
  CHECK(json_string(auth, "plugin") == "creds-adc");
  CHECK(json_string(auth, "mode") == "access-token");
  CHECK(json_string(auth, "credential_type") == "authorized_user");
  CHECK(json_string(auth, "email") == google.user_email);
  CHECK(json_string(auth, "project_id") == "test-project");
  CHECK_FALSE(json_string(auth, "token_expiry").empty());
  CHECK(contains(json_string(auth, "source"), adc + " ([creds-adc] adc_file)"));
  CHECK_FALSE(auth.HasMember("problem"));
  CHECK_FALSE(auth.HasMember("sealed"));
  CHECK(json_string(auth, "program_holds").starts_with("programs hold the real access token"));

  std::string out, err;
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "auth", "status"}, out, err) == 0);
  CHECK(contains(out, "mode: access-token (creds-adc)\n"));
  CHECK(contains(out, "program holds: programs hold the real access token (about an hour)"));
  CHECK(contains(out, "email: " + google.user_email + "\n"));
  CHECK(contains(out, "project: test-project\n"));
  CHECK(contains(out, "token expiry: "));
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "auth", "status", "--json"}, out, err) == 0);
  CHECK(contains(out, "\"email\": \"" + google.user_email + "\""));
  daemon.stop_gracefully();
}

TEST_CASE("without ADC, auth status says mode none and how to log in; programs run without") {
  LoopbackGoogle google;
  DaemonFixture daemon(creds_options(google, ""));
  start_isolated(daemon);
  std::string out, err;
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "auth", "status"}, out, err) == 1);
  CHECK(contains(out, "mode: none (creds-adc)\n"));
  CHECK(contains(out, "problem: No Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS is not set and " +
                          daemon.dir() + "/home/.config/gcloud/application_default_credentials.json"));
  CHECK(contains(out, "to log in: run `gcloud auth application-default login` as "));

  const auto session = daemon.open_session();
  const auto r = daemon.execute(session, "package main\n\nfunc main() {}\n");
  CHECK(json_string(r, "status") == "ok");
  const auto listed = daemon.json(daemon.get("/v1/sessions/" + session));
  CHECK_FALSE(listed.HasMember("identity"));
  CHECK(google.issued().empty());
  daemon.stop_gracefully();
}

TEST_CASE("a failing token endpoint fails the call with an error naming it, and the daemon serves on") {
  LoopbackGoogle google;
  DaemonFixture probe;
  const std::string adc = write_adc(probe, google);
  DaemonFixture daemon(creds_options(google, adc));
  start_isolated(daemon);
  google.fail_with_status = 503;
  const auto session = daemon.open_session();
  const auto response = daemon.post("/v1/sessions/" + session + "/execute",
                                    R"({"files": {"main.go": "package main\n\nfunc main() {}\n"}})");
  CHECK(response.status == 503);
  const auto body = daemon.json(response);
  REQUIRE(body.HasMember("error"));
  CHECK(json_string(body["error"], "code") == "credentials_unavailable");
  const std::string message = json_string(body["error"], "message");
  CHECK(contains(message, "No Google credentials for this call (creds-adc"));
  CHECK(contains(message, google.token_url() + " answered HTTP 503"));
  CHECK(contains(message, adc));

  google.fail_with_status = 0;  // the endpoint is back: the next call gets its token
  CHECK(daemon.get("/v1/health").status == 200);
  daemon.stop_gracefully();
}

// Needs the sandbox's metadata emulator (kode-gopher-sandbox serving /execute "credentials").
TEST_CASE("a program's golang.org/x/oauth2/google token is exactly the host-minted one; no secret reaches the sandbox") {
  LoopbackGoogle google;
  DaemonFixture probe;
  const std::string adc = write_adc(probe, google);
  DaemonFixture daemon(creds_options(google, adc));
  start_isolated(daemon);
  const auto session = daemon.open_session();

  const auto r = daemon.execute(session, R"go(package snippet

import (
	"context"
	"os"

	"golang.org/x/oauth2/google"
)

func run(ctx context.Context) (any, error) {
	creds, err := google.FindDefaultCredentials(ctx, "https://www.googleapis.com/auth/cloud-platform")
	if err != nil {
		return nil, err
	}
	token, err := creds.TokenSource.Token()
	if err != nil {
		return nil, err
	}
	return map[string]any{"token": token.AccessToken, "project": creds.ProjectID,
		"metadata_host": os.Getenv("GCE_METADATA_HOST"), "gac": os.Getenv("GOOGLE_APPLICATION_CREDENTIALS")}, nil
}
)go");
  INFO(json_string(r, "stderr"));
  REQUIRE(json_string(r, "status") == "ok");
  REQUIRE(r.HasMember("result"));
  const auto& value = r["result"]["value"];
  const std::string token = json_string(value, "token");
  CHECK(google.subject_of(token) == google.user_email);
  REQUIRE(google.issued().size() == 1);  // minted once, on the host
  CHECK(google.issued()[0].value == token);
  CHECK(json_string(value, "project") == "test-project");
  CHECK_FALSE(json_string(value, "metadata_host").empty());
  CHECK(json_string(value, "gac").empty());

  const auto found = secrets_visible_in_sandbox(daemon, session, google, adc);
  for (const auto& hit : found.hits) FAIL_CHECK("secret in the sandbox: " << hit);
  CHECK_FALSE(found.host_adc_visible);

  // The record: who each call ran as, never the token.
  std::string out, err;
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "sessions"}, out, err) == 0);
  CHECK(contains(out, google.user_email));
  const auto listed = daemon.json(daemon.get("/v1/sessions/" + session));
  CHECK(json_string(listed, "identity") == google.user_email);
  daemon.stop_gracefully();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((daemon.state_dir() + "/kode-gopher.db").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* query = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT identity, mode, scopes, expires_at FROM credential_grants "
                                 "WHERE session_id = ? ORDER BY id", -1, &query, nullptr) == SQLITE_OK);
  sqlite3_bind_text(query, 1, session.c_str(), -1, SQLITE_TRANSIENT);
  int rows = 0;
  while (sqlite3_step(query) == SQLITE_ROW) {
    ++rows;
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(query, 0))) == google.user_email);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(query, 1))) == "access-token");
    CHECK(contains(reinterpret_cast<const char*>(sqlite3_column_text(query, 2)), "cloud-platform"));
  }
  sqlite3_finalize(query);
  sqlite3_close(db);
  CHECK(rows == 2);  // one grant per call
  for (const char* file : {"/kode-gopher.db", "/kode-gopher.db-wal"}) {
    const std::string bytes = read_file(daemon.state_dir() + file);
    CHECK_FALSE(contains(bytes, token));
    CHECK_FALSE(contains(bytes, google.refresh_token));
  }
}

// The scan above can fail: with copy_adc_file (mode forwarded, an explicit opt-in) the ADC file
// itself is in the sandbox, and the program finds it (and uses it: GOOGLE_APPLICATION_CREDENTIALS).
TEST_CASE("copy_adc_file forwards the ADC file itself, and the scan sees it") {
  LoopbackGoogle google;
  DaemonFixture probe;
  const std::string adc = write_adc(probe, google);
  auto options = creds_options(google, adc);
  options.extra_sections += "copy_adc_file = true\n";
  DaemonFixture daemon(options);
  start_isolated(daemon);
  CHECK(json_string(daemon.json(daemon.get("/v1/auth")), "mode") == "forwarded");
  const auto session = daemon.open_session();
  const auto found = secrets_visible_in_sandbox(daemon, session, google, adc);
  bool copied = false;
  for (const auto& hit : found.hits) {
    copied = copied || contains(hit, "/app/.kode-gopher/credentials/application_default_credentials.json: " +
                                         google.refresh_token);
  }
  CHECK(copied);
  CHECK_FALSE(found.host_adc_visible);  // a copy, not the host's file
  daemon.stop_gracefully();
}

TEST_CASE("creds-workload: programs run as the metadata server's identity (GCE_METADATA_HOST)") {
  LoopbackGoogle google;
  DaemonFixtureOptions options;
  options.extra_plugin_dirs = {kg::test::required_env("KG_CREDS_WORKLOAD_PLUGIN_DIR")};
  options.extra_sandbox_keys = "network = none\n";
  options.extra_sections = "[credentials]\nplugin = creds-workload\n[creds-workload]\nmode = access-token\n";
  DaemonFixture daemon(options);
  start_isolated(daemon, google.metadata_host());

  std::string out, err;
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "auth", "status"}, out, err) == 0);
  CHECK(contains(out, "mode: workload (creds-workload)\n"));
  CHECK(contains(out, "credential type: gce_metadata\n"));
  CHECK(contains(out, "email: " + google.metadata_email + "\n"));
  CHECK(contains(out, "project: " + google.metadata_project + "\n"));

  const auto session = daemon.open_session();
  const auto r = daemon.execute(session, R"go(package snippet

import (
	"context"

	"golang.org/x/oauth2/google"
)

func run(ctx context.Context) (any, error) {
	creds, err := google.FindDefaultCredentials(ctx)
	if err != nil {
		return nil, err
	}
	token, err := creds.TokenSource.Token()
	if err != nil {
		return nil, err
	}
	return token.AccessToken, nil
}
)go");
  INFO(json_string(r, "stderr"));
  REQUIRE(json_string(r, "status") == "ok");
  CHECK(google.subject_of(r["result"]["value"].GetString()) == google.metadata_email);
  CHECK(json_string(daemon.json(daemon.get("/v1/sessions/" + session)), "identity") ==
        google.metadata_email);
  daemon.stop_gracefully();
}
