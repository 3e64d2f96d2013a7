// The GCE metadata emulator (docs/contracts.md §2): every route as a pure answer, the emulator on the
// wire (headers, lifetime), the "credentials" of /execute (400s, the environment a command gets,
// the emulator alive exactly for that command), and real clients reading it: Python's google-auth
// when the test set-up installed it (KG_GOOGLE_AUTH_PYTHON, a venv scripts/setup.sh makes from
// PyPI; Debian 12's python3-google-auth 1.5 predates GCE_METADATA_HOST).
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "metadata_answers.hpp"
#include "metadata_emulator.hpp"
#include "running_sandbox_server.hpp"

using kg::sandbox::answer_metadata_request;
using kg::sandbox::MetadataAnswer;
using kg::sandbox::MetadataEmulator;
using kg::sandbox::MetadataIdentity;
using kg::sandbox::MetadataRequest;
using kg::sandbox::testing::detail_of;
using kg::sandbox::testing::parse_json;
using kg::sandbox::testing::RunningSandboxServer;
using namespace std::chrono_literals;

extern char** environ;

namespace {

const auto kNow = std::chrono::system_clock::from_time_t(1'796'000'000);

MetadataIdentity identity(std::chrono::seconds left = 3600s) {
  return {.access_token = "ya29.test-token",
          .expiry = kNow + left,
          .email = "me@example.com",
          .project = "my-project",
          .quota_project = "billing-project"};
}

MetadataAnswer ask(std::string_view target, const MetadataIdentity& who = identity(),
                   std::string_view method = "GET", bool flavor = true) {
  return answer_metadata_request({.method = method, .target = target, .metadata_flavor_google = flavor},
                                 who, kNow);
}

std::string rfc3339(std::chrono::system_clock::time_point when) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&seconds));
  return text;
}

std::string credentials_json(const std::string& token, std::chrono::system_clock::time_point expiry,
                             const std::string& extra = "") {
  return R"({"access_token":")" + token + R"(","expiry":")" + rfc3339(expiry) + "\"" + extra + "}";
}

struct WireAnswer {
  int status;
  std::string body;
  std::string flavor;
  std::string content_type;
};

WireAnswer get(const std::string& host, const std::string& target, bool flavor = true) {
  const auto colon = host.rfind(':');
  Poco::Net::HTTPClientSession session(host.substr(0, colon),
                                       static_cast<Poco::UInt16>(std::stoi(host.substr(colon + 1))));
  session.setTimeout(Poco::Timespan(5, 0));
  Poco::Net::HTTPRequest request("GET", target, Poco::Net::HTTPMessage::HTTP_1_1);
  if (flavor) request.set("Metadata-Flavor", "Google");
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::ostringstream body;
  body << session.receiveResponse(response).rdbuf();
  return {static_cast<int>(response.getStatus()), body.str(), response.get("Metadata-Flavor", ""),
          response.getContentType()};
}

}  // namespace

TEST_CASE("metadata: the root answers without the header; everything else needs it") {
  CHECK(ask("/", identity(), "GET", false).body == "computeMetadata/\n");
  CHECK(ask("/", identity(), "GET", false).status == 200);
  CHECK(ask("/computeMetadata/v1/project/project-id", identity(), "GET", false).status == 403);
  CHECK(ask("/computeMetadata/v1/project/project-id").status == 200);
  // A request that came through a proxy is refused, as the real server does.
  CHECK(answer_metadata_request({.method = "GET", .target = "/computeMetadata/v1/project/project-id",
                                 .metadata_flavor_google = true, .forwarded = true},
                                identity(), kNow)
            .status == 403);
}

TEST_CASE("metadata: only GET; other prefixes and unknown keys are 404") {
  for (const auto method : {"POST", "PUT", "DELETE", "HEAD", "PATCH"}) {
    CAPTURE(method);
    CHECK(ask("/computeMetadata/v1/project/project-id", identity(), method).status == 405);
    CHECK(ask("/", identity(), method).status == 405);
  }
  CHECK(ask("/computeMetadata/v2/project/project-id").status == 404);
  CHECK(ask("/computeMetadata/v1beta1/project/project-id").status == 404);
  CHECK(ask("/project/project-id").status == 404);
  CHECK(ask("/computeMetadata/v1/instance/zone").status == 404);
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/other@example.com/token").status == 404);
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/default/identity").status == 404);
  CHECK(ask("/computeMetadata/v1/project/numeric-project-id").status == 404);  // not known
}

TEST_CASE("metadata: project, universe and the service account's texts") {
  const auto project = ask("/computeMetadata/v1/project/project-id");
  CHECK(project.body == "my-project");
  CHECK(project.content_type == "application/text");
  MetadataIdentity unknown = identity();
  unknown.project.clear();
  CHECK(ask("/computeMetadata/v1/project/project-id", unknown).status == 404);
  CHECK(ask("/computeMetadata/v1/universe/universe-domain").body == "googleapis.com");
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/").body == "default/\nme@example.com/\n");
  for (const auto account : {"default", "me@example.com"}) {
    const std::string base = std::string("/computeMetadata/v1/instance/service-accounts/") + account;
    CAPTURE(base);
    CHECK(ask(base + "/").body == "aliases\nemail\nscopes\ntoken\n");
    CHECK(ask(base + "/email").body == "me@example.com");
    CHECK(ask(base + "/scopes").body == "https://www.googleapis.com/auth/cloud-platform\n");
  }
  // Without an email: only the alias, and "default" as the email (google-auth needs one).
  MetadataIdentity anonymous = identity();
  anonymous.email.clear();
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/", anonymous).body == "default/\n");
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/default/email", anonymous).body == "default");
}

TEST_CASE("metadata: ?recursive=true gives the account as JSON") {
  const auto answer = ask("/computeMetadata/v1/instance/service-accounts/default/?recursive=true");
  CHECK(answer.status == 200);
  CHECK(answer.content_type == "application/json");
  CHECK(answer.body ==
        R"({"aliases":["default"],"email":"me@example.com","scopes":["https://www.googleapis.com/auth/cloud-platform"]})");
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/default/?alt=json&recursive=true").content_type ==
        "application/json");
}

TEST_CASE("metadata: the token, with the true remaining lifetime, and 404 once expired") {
  const auto answer = ask("/computeMetadata/v1/instance/service-accounts/default/token");
  CHECK(answer.status == 200);
  CHECK(answer.content_type == "application/json");
  CHECK(answer.body == R"({"access_token":"ya29.test-token","expires_in":3600,"token_type":"Bearer"})");
  // ?scopes= (Go and google-auth send it) changes nothing: the host minted for the run.
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/me@example.com/token?scopes=a,b").body ==
        answer.body);
  // A token the host handed over with more than five minutes left starts above 300 s...
  const auto fresh = parse_json(ask("/computeMetadata/v1/instance/service-accounts/default/token",
                                    identity(301s)).body);
  CHECK(fresh["expires_in"].GetInt64() == 301);
  CHECK(fresh["expires_in"].GetInt64() > 300);
  // ...and counts down honestly (never rounded up past the real expiry), never to 0.
  const auto late = parse_json(ask("/computeMetadata/v1/instance/service-accounts/default/token",
                                   identity(1s)).body);
  CHECK(late["expires_in"].GetInt64() == 1);
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/default/token", identity(0s)).status == 404);
  CHECK(ask("/computeMetadata/v1/instance/service-accounts/default/token", identity(-5s)).status == 404);
}

TEST_CASE("metadata emulator: on a loopback port, Metadata-Flavor on every answer, gone when destroyed") {
  std::string host;
  {
    MetadataEmulator emulator({.access_token = "ya29.wire",
                               .expiry = std::chrono::system_clock::now() + 3600s,
                               .project = "wire-project"});
    host = emulator.host();
    REQUIRE(host.starts_with("127.0.0.1:"));
    const auto root = get(host, "/", false);
    CHECK(root.status == 200);
    CHECK(root.body == "computeMetadata/\n");
    CHECK(root.flavor == "Google");
    const auto refused = get(host, "/computeMetadata/v1/project/project-id", false);
    CHECK(refused.status == 403);
    CHECK(refused.flavor == "Google");
    const auto project = get(host, "/computeMetadata/v1/project/project-id");
    CHECK(project.body == "wire-project");
    CHECK(project.content_type == "application/text");
    const auto token = get(host, "/computeMetadata/v1/instance/service-accounts/default/token");
    CHECK(token.content_type == "application/json");
    CHECK(parse_json(token.body)["access_token"].GetString() == std::string("ya29.wire"));
    CHECK(get(host, "/computeMetadata/v1/nothing").flavor == "Google");
    const auto env = emulator.environment();
    CHECK(env == std::vector<std::pair<std::string, std::string>>{
                     {"GCE_METADATA_HOST", host}, {"GCE_METADATA_IP", host},
                     {"GCE_METADATA_ROOT", host}, {"GOOGLE_CLOUD_PROJECT", "wire-project"}});
  }
  CHECK_THROWS(get(host, "/"));  // nothing listens there any more
}

TEST_CASE("/execute credentials: refused when empty, expired, malformed or unknown") {
  RunningSandboxServer sandbox;
  const auto later = std::chrono::system_clock::now() + 3600s;
  const auto refuse = [&](const std::string& credentials, const std::string& expected) {
    CAPTURE(credentials);
    const auto response =
        sandbox.post_json("/execute", R"({"command":"true","credentials":)" + credentials + "}");
    CHECK(response.status == 400);
    CHECK_MESSAGE(detail_of(response).find(expected) != std::string::npos, detail_of(response));
  };
  refuse(credentials_json("", later), "\"access_token\" is empty");
  refuse(R"({"expiry":"2099-01-01T00:00:00Z"})", "\"access_token\" is empty or missing");
  refuse(credentials_json("ya29.x", std::chrono::system_clock::now() - 1s), "expired at");
  refuse(R"({"access_token":"ya29.x","expiry":"tomorrow"})", "RFC 3339");
  refuse(R"({"access_token":"ya29.x","expiry":"2099-01-01T00:00:00"})", "RFC 3339");  // no zone
  refuse(R"({"access_token":"ya29.x"})", "\"expiry\" is required");
  refuse(credentials_json("ya29.x", later, R"(,"refresh_token":"1//x")"), "unknown key \"refresh_token\"");
  refuse(credentials_json("ya29 x", later), "space or control character");
  refuse(R"("ya29.x")", "must be an object");
}

TEST_CASE("/execute credentials: the command gets the emulator's variables; it lives for that command only") {
  RunningSandboxServer sandbox;
  const auto expiry = std::chrono::system_clock::now() + 3600s;
  const std::string body =
      R"({"command":"echo $GCE_METADATA_HOST $GCE_METADATA_IP $GCE_METADATA_ROOT $GOOGLE_CLOUD_PROJECT $GOOGLE_CLOUD_QUOTA_PROJECT",)"
      R"("credentials":)" +
      credentials_json("ya29.cmd", expiry,
                       R"(,"email":"me@example.com","project":"p1","quota_project":"q1")") +
      R"(,"env":{"GCE_METADATA_HOST":"169.254.169.254"}})";
  const auto response = sandbox.post_json("/execute", body);
  REQUIRE(response.status == 200);
  const auto result = parse_json(response.body);
  std::istringstream words(result["stdout"].GetString());
  std::string host, ip, root, project, quota;
  words >> host >> ip >> root >> project >> quota;
  CHECK(host.starts_with("127.0.0.1:"));  // the emulator's, not what the request's env said
  CHECK(ip == host);
  CHECK(root == host);
  CHECK(project == "p1");
  CHECK(quota == "q1");
  CHECK_THROWS(get(host, "/"));  // stopped with the command

  // A command without credentials gets none of it.
  const auto plain = parse_json(
      sandbox.post_json("/execute", R"({"command":"echo \"[$GCE_METADATA_HOST]\""})").body);
  CHECK(plain["stdout"].GetString() == std::string("[]\n"));
}

TEST_CASE("/execute credentials: a command reads its token over HTTP while it runs") {
  RunningSandboxServer sandbox;
  const auto expiry = std::chrono::system_clock::now() + 3600s;
  const std::string command =
      "curl -sS -H 'Metadata-Flavor: Google' "
      "http://$GCE_METADATA_HOST/computeMetadata/v1/instance/service-accounts/default/token";
  const auto response = sandbox.post_json(
      "/execute", R"({"command":")" + command + R"(","credentials":)" +
                      credentials_json("ya29.http", expiry) + "}");
  REQUIRE(response.status == 200);
  const auto result = parse_json(response.body);
  REQUIRE_MESSAGE(result["exit_code"].GetInt() == 0, result["stderr"].GetString());
  const auto token = parse_json(result["stdout"].GetString());
  CHECK(token["access_token"].GetString() == std::string("ya29.http"));
  CHECK(token["expires_in"].GetInt64() > 3500);
  CHECK(token["token_type"].GetString() == std::string("Bearer"));
}

TEST_CASE("/execute credentials: a sandbox on the host's network refuses them") {
  kg::sandbox::testing::ScratchDirectory scratch;
  std::filesystem::create_directory(scratch.path() / "app");
  auto options = kg::sandbox::testing::small_limits(scratch.path() / "app");
  options.shares_host_network = true;
  kg::test::RecordingLogger logger;
  const std::string socket = (scratch.path() / "s.sock").string();
  kg::sandbox::SandboxServer server(
      kg::sandbox::listen_on(kg::sandbox::parse_listen_address("unix:" + socket)), options, logger);
  server.start();
  const kg::net::UnixHttpClient client(socket);
  const auto response = client.request(
      "POST", "/execute",
      R"({"command":"true","credentials":)" +
          credentials_json("ya29.x", std::chrono::system_clock::now() + 3600s) + "}",
      {});
  CHECK(response.status == 400);
  CHECK(detail_of(response).find("shares the host's network") != std::string::npos);
}

TEST_CASE("/execute credentials: Python google-auth finds the project and the token") {
  const char* configured = std::getenv("KG_GOOGLE_AUTH_PYTHON");
  if (configured == nullptr || !std::filesystem::exists(configured)) {
    MESSAGE("google-auth is not installed (scripts/setup.sh makes a venv with it from PyPI at "
            "KG_GOOGLE_AUTH_PYTHON): test not run");
    return;
  }
  // google.auth.default() with no credentials file: it pings GCE_METADATA_IP, reads the project
  // from GOOGLE_CLOUD_PROJECT, and compute_engine.Credentials fetches the account (recursive)
  // and the token from GCE_METADATA_HOST.
  RunningSandboxServer sandbox;
  const std::string python = configured;
  const std::string script =
      "import google.auth, google.auth.transport.requests as r\\n"
      "creds, project = google.auth.default()\\n"
      "creds.refresh(r.Request())\\n"
      "print(type(creds).__module__, project, creds.token, creds.service_account_email)\\n";
  const auto response = sandbox.post_json(
      "/execute",
      R"({"command":"HOME=/nonexistent )" + python + R"( -c \")" + script + R"(\"","timeout_ms":60000,)"
      R"("credentials":)" +
          credentials_json("ya29.python", std::chrono::system_clock::now() + 3600s,
                           R"(,"email":"me@example.com","project":"py-project")") +
          "}");
  REQUIRE(response.status == 200);
  const auto result = parse_json(response.body);
  REQUIRE_MESSAGE(result["exit_code"].GetInt() == 0, result["stderr"].GetString());
  CHECK(result["stdout"].GetString() ==
        std::string("google.auth.compute_engine.credentials py-project ya29.python me@example.com\n"));
}

TEST_CASE("/execute credentials: in its own network namespace the emulator is out of the host's reach") {
  const char* bwrap = std::getenv("KG_BWRAP");
  const char* binary = std::getenv("KG_SANDBOX_SERVER_BINARY");
  if (bwrap == nullptr || binary == nullptr) {
    MESSAGE("KG_BWRAP or KG_SANDBOX_SERVER_BINARY is not set (meson sets both when bwrap is installed): test not run");
    return;
  }
  // The real server in a network namespace of its own, as in a local sandbox (bubblewrap
  // brings up its loopback); the workdir is a host folder, so the test sees what it writes.
  kg::sandbox::testing::ScratchDirectory scratch;
  const auto workdir = scratch.path() / "app";
  std::filesystem::create_directory(workdir);
  const std::string socket = (scratch.path() / "s.sock").string();
  std::vector<std::string> arguments{bwrap, "--unshare-net", "--unshare-pid", "--die-with-parent",
                                     "--dev-bind", "/", "/", "--proc", "/proc", binary,
                                     "--listen", "unix:" + socket, "--workdir", workdir.string()};
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  REQUIRE(::posix_spawn(&pid, bwrap, nullptr, nullptr, argv.data(), environ) == 0);
  struct Reap {
    pid_t pid;
    ~Reap() {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } reap{pid};
  const kg::net::UnixHttpClient client(socket);
  bool up = false;
  for (int tries = 0; tries < 500 && !up; ++tries) {
    try {
      up = client.get("/").status == 200;
    } catch (const kg::net::HttpTransportError&) {
      std::this_thread::sleep_for(20ms);
    }
  }
  REQUIRE(up);

  // The command publishes the emulator's address, reads its token, and waits while the test
  // knocks on that address from the host's namespace.
  const std::string command =
      "echo $GCE_METADATA_HOST > host.txt; curl -sS -H 'Metadata-Flavor: Google' "
      "http://$GCE_METADATA_HOST/computeMetadata/v1/instance/service-accounts/default/token "
      "> token.txt; touch ready; sleep 3";
  std::thread call([&] {
    client.request("POST", "/execute",
                   R"({"command":")" + command + R"(","credentials":)" +
                       credentials_json("ya29.private", std::chrono::system_clock::now() + 3600s) +
                       "}",
                   {});
  });
  for (int tries = 0; tries < 250 && !std::filesystem::exists(workdir / "ready"); ++tries) {
    std::this_thread::sleep_for(20ms);
  }
  const std::string host = kg::sandbox::testing::file_contents(workdir / "host.txt");
  const std::string token = kg::sandbox::testing::file_contents(workdir / "token.txt");
  CHECK(host.starts_with("127.0.0.1:"));
  CHECK(token.find("\"access_token\":\"ya29.private\"") != std::string::npos);  // inside: served
  if (host.size() > 10) {
    CHECK_THROWS(get(host.substr(0, host.find('\n')), "/"));  // the host's 127.0.0.1: nothing there
  }
  call.join();
}
