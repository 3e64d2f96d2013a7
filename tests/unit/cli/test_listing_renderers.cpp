// The text of `sessions`, `stats` and `plugins` from the daemon's JSON.
#include <doctest/doctest.h>

#include "commands.hpp"
#include "json_text.hpp"
#include "text_table.hpp"

using kg::cli::parse_json;

namespace {

// GET /v1/sessions' answer as the CLI reads it, with the daemon API's sessions listing codec.
kg::wire::daemon_api::SessionsListing sessions_answer(const std::string& json) {
  return kg::wire::daemon_api::decode_sessions_listing(parse_json(json, "test"));
}

// GET /v1/stats' answer as the CLI reads it, with the daemon API's Stats codec.
kg::wire::daemon_api::Stats stats_answer(const std::string& json) {
  return kg::wire::daemon_api::decode_stats(parse_json(json, "test"));
}

}  // namespace

TEST_CASE("sessions are a table") {
  CHECK(kg::cli::render_sessions(
            sessions_answer(R"({"sessions": [
      {"id": "s-1", "client": "cli", "provider": "local", "runtime": "compiled-go",
       "state": "open", "opened_at": "2026-01-02T03:04:05Z", "calls": 3},
      {"id": "s-22", "client": "mcp-http", "provider": "local", "runtime": "yaegi",
       "owner": "https://accounts.google.com#42", "owner_email": "dev@example.com",
       "state": "closed", "opened_at": "2026-01-02T03:05:00Z", "closed_at": "2026-01-02T03:06:00Z",
       "calls": 12, "api_calls": 40, "api_calls_refused": 2, "identity": "dev@example.com"}]})"),
            true) ==
        "ID    STATE   CLIENT    USER             RUNTIME      CALLS  API             OPENED_AT             IDENTITY\n"
        "s-1   open    cli       -                compiled-go  3      0               2026-01-02T03:04:05Z  -\n"
        "s-22  closed  mcp-http  dev@example.com  yaegi        12     40 (2 refused)  2026-01-02T03:05:00Z  dev@example.com\n");
}

namespace {

// GET /v1/auth's answer as the CLI reads it, with the daemon API's AuthStatus codec.
kg::wire::daemon_api::AuthStatus auth_answer(const std::string& json) {
  return kg::wire::daemon_api::decode_auth_status(parse_json(json, "test"));
}

// GET /v1/plugins' answer as the CLI reads it, with the daemon API's PluginsListing codec.
kg::wire::daemon_api::PluginsListing plugins_answer(const std::string& json) {
  return kg::wire::daemon_api::decode_plugins_listing(parse_json(json, "test"));
}

}  // namespace

TEST_CASE("auth status: who programs run as, or what is wrong and how to log in") {
  const auto working = auth_answer(R"json({"plugin": "creds-adc", "plugin_loaded": true,
      "mode": "access-token", "credential_type": "authorized_user", "email": "dev@example.com",
      "project_id": "my-proj", "token_expiry": "2026-12-03T10:00:00Z",
      "source": "/home/dev/.config/gcloud/application_default_credentials.json (gcloud's well-known file)",
      "program_holds": "programs hold the real access token (about an hour)"})json");
  CHECK(kg::cli::render_auth_status(working) ==
        "mode: access-token (creds-adc)\n"
        "credential type: authorized_user\n"
        "email: dev@example.com\n"
        "project: my-proj\n"
        "token expiry: 2026-12-03T10:00:00Z\n"
        "source: /home/dev/.config/gcloud/application_default_credentials.json (gcloud's well-known file)\n"
        "program holds: programs hold the real access token (about an hour)\n");
  CHECK(working.usable());
  const auto none = auth_answer(R"({"plugin": "creds-adc", "plugin_loaded": true, "mode": "none",
      "problem": "No Application Default Credentials", "login_hint": "run `gcloud auth application-default login`"})");
  CHECK(kg::cli::render_auth_status(none) ==
        "mode: none (creds-adc)\n"
        "problem: No Application Default Credentials\n"
        "to log in: run `gcloud auth application-default login`\n");
  CHECK_FALSE(none.usable());
  // Team mode with run_as = user and no credential plugin: signed-in users' calls still run as
  // them; the command exits 1 for the calls without a user.
  const auto team = auth_answer(R"({"plugin": "none", "plugin_loaded": false, "mode": "none",
      "problem": "No credential plugin is configured", "signed_in_users_mode": "sealed"})");
  CHECK(kg::cli::render_auth_status(team) ==
        "mode: none\n"
        "problem: No credential plugin is configured\n"
        "signed-in users: each user's calls run as that user's own Google identity, mode sealed "
        "([team] run_as = user; the lines above are for calls without a signed-in user)\n");
  CHECK_FALSE(team.usable());
  const auto broken = auth_answer(R"({"mode": "access-token", "problem": "invalid_grant"})");
  CHECK_FALSE(broken.usable());
}

TEST_CASE("no sessions says so") {
  const auto empty = sessions_answer(R"({"sessions": []})");
  CHECK(kg::cli::render_sessions(empty, false) == "no open sessions\n");
  CHECK(kg::cli::render_sessions(empty, true) == "no sessions\n");
}

TEST_CASE("stats show counts, calls by status and the timing table") {
  CHECK(kg::cli::render_stats(stats_answer(R"({"sessions": {"open": 1, "total": 12},
      "calls": {"total": 40, "by_status": {"ok": 35, "compile_error": 5}},
      "timings": [{"runtime": "compiled-go", "metric": "build_ms", "count": 40, "p50": 700,
                   "p95": 1900},
                  {"runtime": "compiled-go", "metric": "total_ms", "count": 40, "p50": 812,
                   "p95": 2100}]})")) ==
        "sessions: 1 open, 12 total\n"
        "calls: 40 total (ok 35, compile_error 5)\n"
        "\n"
        "RUNTIME      METRIC    COUNT  P50_MS  P95_MS\n"
        "compiled-go  build_ms  40     700     1900\n"
        "compiled-go  total_ms  40     812     2100\n");
}

TEST_CASE("stats of a fresh daemon") {
  CHECK(kg::cli::render_stats(stats_answer(R"({"sessions": {"open": 0, "total": 0},
      "calls": {"total": 0, "by_status": {}}, "timings": []})")) ==
        "sessions: 0 open, 0 total\n"
        "calls: 0 total\n");
}

TEST_CASE("plugins show the reason when unavailable, else the path") {
  CHECK(kg::cli::render_plugins(plugins_answer(R"({"plugins": [
      {"name": "compiled-go", "kind": "runtime", "version": "0.1.0", "description": "go build",
       "path": "/usr/lib/kode-gopher/plugins/compiled-go.so", "state": "ready"},
      {"name": "yaegi", "kind": "runtime", "version": "0.1.0", "description": "interpreter",
       "path": "/usr/lib/kode-gopher/plugins/yaegi.so", "state": "unavailable",
       "reason": "no yaegi runner in the sandbox image"}], "runtimes": []})")) ==
        "NAME         KIND     VERSION  STATE        REASON/PATH\n"
        "compiled-go  runtime  0.1.0    ready        /usr/lib/kode-gopher/plugins/compiled-go.so\n"
        "yaegi        runtime  0.1.0    unavailable  no yaegi runner in the sandbox image\n");
  CHECK(kg::cli::render_plugins(plugins_answer(R"({"plugins": [], "runtimes": []})")) ==
        "no plugins loaded\n");
}

TEST_CASE("plugins also list the runtimes a call may ask for, the default marked") {
  CHECK(kg::cli::render_plugins(plugins_answer(R"({"plugins": [], "runtimes": [
      {"name": "compiled-go", "available": true, "default": false},
      {"name": "yaegi", "available": false, "default": false, "reason": "Runtime 'yaegi' is disabled: no runner"},
      {"name": "auto", "available": false, "default": true, "reason": "Runtime 'auto' needs runtime 'yaegi', which is disabled: no runner"}]})")) ==
        "no plugins loaded\n"
        "\n"
        "RUNTIME      STATE        NOTE\n"
        "compiled-go  ready\n"
        "yaegi        unavailable  Runtime 'yaegi' is disabled: no runner\n"
        "auto         unavailable  the default; Runtime 'auto' needs runtime 'yaegi', which is disabled: no runner\n");
}

TEST_CASE("table widths count UTF-8 characters, missing cells are empty") {
  kg::cli::TextTable table({"A", "B", "C"});
  table.add_row({"héllo", "x"});
  table.add_row({"h", "yy", "z"});
  CHECK(table.render() ==
        "A      B   C\n"
        "héllo  x\n"
        "h      yy  z\n");
}

TEST_CASE("a session's API requests: the counts, a table, and the refusals' messages") {
  const auto answer = kg::wire::daemon_api::decode_session_api_calls(parse_json(R"({
      "session_id": "s-7", "count": 3, "refused": 1, "dropped": 4, "api_calls": [
      {"id": 1, "call_id": 2, "recorded_at": "2026-01-02T03:04:05.100Z",
       "host": "storage.googleapis.com", "http_method": "GET", "grpc": false,
       "service": "storage", "method": "storage.objects.list", "resource": "b/logs/o",
       "read": true, "http_status": 200, "request_bytes": 100, "response_bytes": 2000,
       "duration_us": 12500},
      {"id": 2, "call_id": 3, "recorded_at": "2026-01-02T03:05:00.000Z",
       "host": "pubsub.googleapis.com", "http_method": "POST", "grpc": true,
       "service": "pubsub", "method": "google.pubsub.v1.Publisher/Publish", "read": false,
       "http_status": 200, "grpc_status": 7, "refused": "read_only",
       "refusal": "kode-gopher API policy: read-only refuses Publish",
       "request_bytes": 50, "response_bytes": 0, "duration_us": 300}]})", "test"));
  CHECK(kg::cli::render_session_api_calls(answer) ==
        "session s-7: 3 API requests (1 refused); 4 more past the egress proxy's bound per call "
        "were counted, not recorded\n"
        "CALL  RECORDED_AT               SERVICE  METHOD                              RESOURCE  STATUS  MS  BYTES  REFUSED\n"
        "2     2026-01-02T03:04:05.100Z  storage  storage.objects.list                b/logs/o  200     12  2100   -\n"
        "3     2026-01-02T03:05:00.000Z  pubsub   google.pubsub.v1.Publisher/Publish  -         grpc=7  0   50     read_only\n"
        "refused in call 3: kode-gopher API policy: read-only refuses Publish\n"
        "... 1 more (the first 2 are listed; the daemon's SQLite database holds them all, "
        "docs/api-policy.md)\n");
  CHECK(kg::cli::render_session_api_calls({"s-1", 0, 0, 0, {}}) == "session s-1: 0 API requests\n");
}
