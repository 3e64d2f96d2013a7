// The daemon's SandboxClient against the real sandbox server (in-process, on a Unix socket), and
// against a scripted peer that lacks the read_file extension (other runtimes implementing
// docs/contracts.md §1): the file is then read with a second request, and the caller cannot tell.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include <rapidjson/document.h>

#include "running_sandbox_server.hpp"
#include "sandbox_client.hpp"
#include "unix_http_client.hpp"
#include "scratch_directory.hpp"
#include "../../support/test_json.hpp"

using kg::plugin::CommandSpec;
using kg::plugin::FileReadRequest;
using kg::plugin::SourceFile;
using kg::sandbox::SandboxClient;

// A client of the sandbox server listening on `socket_path`.
SandboxClient client_of(const std::string& socket_path) {
  return SandboxClient(std::make_unique<kg::net::UnixHttpClient>(socket_path));
}
using kg::sandbox::testing::file_contents;
using kg::sandbox::testing::RunningSandboxServer;

namespace {

// Answers each connection's request by the first line's method and path, in order; records the
// request lines it saw. An answer starting with kFailure is sent with status 500.
class ScriptedPeer {
 public:
  static constexpr std::string_view kFailure = "HTTP 500:";
  explicit ScriptedPeer(std::map<std::string, std::string> answers) : answers_(std::move(answers)) {
    path_ = (scratch_.path() / "peer.sock").string();
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedPeer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  const std::string& path() const { return path_; }
  const std::vector<std::string>& seen() const { return seen_; }
  const std::vector<std::string>& bodies() const { return bodies_; }

 private:
  // The request's body, by its Content-Length.
  static std::string read_body(int client, const std::string& request, std::size_t header_end) {
    if (header_end == std::string::npos) return {};
    const auto field = request.find("Content-Length: ");
    if (field == std::string::npos || field > header_end) return {};
    const std::size_t length = std::stoul(request.substr(field + 16));
    std::string body = request.substr(header_end + 4);
    char buffer[4096];
    while (body.size() < length) {
      const ssize_t got = ::read(client, buffer, sizeof buffer);
      if (got <= 0) break;
      body.append(buffer, static_cast<std::size_t>(got));
    }
    return body;
  }

  void serve() {
    for (;;) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string request;
      char buffer[4096];
      std::size_t header_end = std::string::npos;
      while ((header_end = request.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t got = ::read(client, buffer, sizeof buffer);
        if (got <= 0) break;
        request.append(buffer, static_cast<std::size_t>(got));
      }
      const std::string line = request.substr(0, request.find(" HTTP/1.1"));
      seen_.push_back(line);
      bodies_.push_back(read_body(client, request, header_end));
      const auto found = answers_.find(line);
      std::string body = found == answers_.end() ? R"({"detail":"no"})" : found->second;
      std::string status = found == answers_.end() ? "404 Not Found" : "200 OK";
      if (body.starts_with(kFailure)) {  // scripted as a failure: HTTP 500 with the rest as body
        body.erase(0, kFailure.size());
        status = "500 Internal Server Error";
      }
      const std::string answer = "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\n"
                                 "Content-Length: " + std::to_string(body.size()) +
                                 "\r\nConnection: close\r\n\r\n" + body;
      // The body (if any) is small and already read, or unread and irrelevant: answer and close.
      [[maybe_unused]] auto ignored = ::write(client, answer.data(), answer.size());
      ::close(client);
    }
  }

  kg::sandbox::testing::ScratchDirectory scratch_;
  std::string path_;
  int fd_ = -1;
  std::map<std::string, std::string> answers_;
  std::vector<std::string> seen_;
  std::vector<std::string> bodies_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("SandboxClient replaces /app and reads a file after a command, one request each") {
  RunningSandboxServer sandbox;
  SandboxClient client = client_of(sandbox.socket_path());
  const std::vector<SourceFile> first = {{"old.go", "old\n"}};
  client.replace_workdir(first);
  const std::vector<SourceFile> second = {{"main.go", "package main\n"}, {"sub/x.go", "package sub\n"}};
  client.replace_workdir(second);
  CHECK_FALSE(std::filesystem::exists(sandbox.workdir() / "old.go"));
  CHECK(file_contents(sandbox.workdir() / "sub/x.go") == "package sub\n");

  CommandSpec spec;
  spec.command = "mkdir -p .kg && printf '{\"kind\":\"ok\"}\\377' > .kg/result.json";
  spec.read_file_after = FileReadRequest{".kg/result.json", 1024};
  const auto before = sandbox.logger().lines().size();
  const auto outcome = client.run_command(spec);
  CHECK(outcome.exit_code == 0);
  REQUIRE(outcome.file_after.has_value());
  CHECK(outcome.file_after->exists);
  CHECK(outcome.file_after->error.empty());
  CHECK(outcome.file_after->content == "{\"kind\":\"ok\"}\377");
  CHECK(sandbox.logger().lines().size() == before + 1);  // one request

  spec.command = "rm .kg/result.json";
  const auto removed = client.run_command(spec);
  REQUIRE(removed.file_after.has_value());
  CHECK_FALSE(removed.file_after->exists);

  spec.command = "true";
  spec.read_file_after.reset();
  CHECK_FALSE(client.run_command(spec).file_after.has_value());
}

TEST_CASE("SandboxClient sends a command's credentials as docs/contracts.md §1 says, unknown members left out") {
  ScriptedPeer peer(std::map<std::string, std::string>{
      {"POST /execute", R"({"stdout":"","stderr":"","exit_code":0})"}});
  SandboxClient client = client_of(peer.path());
  CommandSpec spec;
  spec.command = "./prog";
  client.run_command(spec);
  spec.credentials = kg::plugin::CommandCredentials{"ya29.token", "2026-12-03T10:00:00Z",
                                                    "dev@example.com", "my-project", ""};
  client.run_command(spec);
  REQUIRE(peer.bodies().size() == 2);
  kg::json::ReadJson without_read = kg::test::read_test_json(peer.bodies()[0]);
  rapidjson::Document& without = without_read.document;
  REQUIRE(without.IsObject());
  CHECK_FALSE(without.HasMember("credentials"));
  kg::json::ReadJson with_read = kg::test::read_test_json(peer.bodies()[1]);
  rapidjson::Document& with = with_read.document;
  REQUIRE(with.IsObject());
  REQUIRE(with.HasMember("credentials"));
  const auto& credentials = with["credentials"];
  CHECK(std::string(credentials["access_token"].GetString()) == "ya29.token");
  CHECK(std::string(credentials["expiry"].GetString()) == "2026-12-03T10:00:00Z");
  CHECK(std::string(credentials["email"].GetString()) == "dev@example.com");
  CHECK(std::string(credentials["project"].GetString()) == "my-project");
  CHECK_FALSE(credentials.HasMember("quota_project"));
  CHECK(credentials.MemberCount() == 4);
}

TEST_CASE("SandboxClient reads the file with a second request when the sandbox lacks read_file") {
  const std::string executed = R"({"stdout":"","stderr":"","exit_code":0})";
  ScriptedPeer peer({{"POST /execute", executed},
                     {"GET /download/.kode-gopher%2Fresult.json", R"({"kind":"ok","value":1})"}});
  SandboxClient client = client_of(peer.path());
  CommandSpec spec;
  spec.command = "./prog";
  spec.read_file_after = FileReadRequest{".kode-gopher/result.json", 1024};
  const auto outcome = client.run_command(spec);
  REQUIRE(outcome.file_after.has_value());
  CHECK(outcome.file_after->exists);
  CHECK(outcome.file_after->content == R"({"kind":"ok","value":1})");
  CHECK(peer.seen() == std::vector<std::string>{"POST /execute", "GET /download/.kode-gopher%2Fresult.json"});

  spec.read_file_after = FileReadRequest{"missing.json", 1024};
  const auto missing = client.run_command(spec);
  REQUIRE(missing.file_after.has_value());
  CHECK_FALSE(missing.file_after->exists);
  CHECK(missing.file_after->error.empty());
}

TEST_CASE("SandboxClient reports a file sent as invalid base64 with the file, keeping the outcome") {
  const std::map<std::string, std::string> answers = {
      {"POST /execute", R"({"stdout":"ran\n","stderr":"","exit_code":3,)"
                        R"("file":{"path":"r.json","exists":true,"content_base64":"!!not base64!!"}})"}};
  ScriptedPeer peer(answers);
  SandboxClient client = client_of(peer.path());
  CommandSpec spec;
  spec.command = "./prog";
  spec.read_file_after = FileReadRequest{"r.json", 1024};
  const auto outcome = client.run_command(spec);
  CHECK(outcome.exit_code == 3);
  CHECK(outcome.stdout_text == "ran\n");
  REQUIRE(outcome.file_after.has_value());
  CHECK(outcome.file_after->exists);
  CHECK(outcome.file_after->error.starts_with("the sandbox sent it as invalid base64"));
  CHECK(peer.seen() == std::vector<std::string>{"POST /execute"});
}

TEST_CASE("SandboxClient reads a hostile sandbox's answers without recursion, as valid UTF-8") {
  const std::string fffd = "\xEF\xBF\xBD";
  CommandSpec spec;
  spec.command = "./prog";
  spec.read_file_after = FileReadRequest{"r.json", 1024};

  SUBCASE("an answer nested 120 000 levels deep is a SandboxError, not a stack overflow") {
    ScriptedPeer peer({{"POST /execute", R"({"stdout":"","x":)" + std::string(120'000, '[') +
                                             std::string(120'000, ']') + "}"}});
    SandboxClient client = client_of(peer.path());
    CHECK_THROWS_WITH_AS(client.run_command(spec),
                         "Running a command: the sandbox's answer nests deeper than 128 levels "
                         "(line 1, column 145)",
                         kg::plugin::SandboxError);
  }

  SUBCASE("strings that are not UTF-8 are repaired: streams, a file's error, an error's text") {
    ScriptedPeer peer(
        {{"POST /execute", "{\"stdout\":\"out \xFF\",\"stderr\":\"err \xC0\x80\",\"exit_code\":1,"
                           "\"file\":{\"path\":\"r.json\",\"exists\":true,"
                           "\"error\":\"cannot \xED\xA0\x80\"}}"},
         {"POST /upload-tar?replace=1", std::string(ScriptedPeer::kFailure) + "no \xFF\xFE json"}});
    SandboxClient client = client_of(peer.path());
    const auto outcome = client.run_command(spec);
    CHECK(outcome.stdout_text == "out " + fffd);
    CHECK(outcome.stderr_text == "err " + fffd + fffd);
    REQUIRE(outcome.file_after.has_value());
    CHECK(outcome.file_after->error == "cannot " + fffd + fffd + fffd);
    const std::vector<SourceFile> files = {{"main.go", "package main\n"}};
    CHECK_THROWS_WITH_AS(client.replace_workdir(files),
                         ("Uploading the program failed: HTTP 500: no " + fffd + fffd + " json").c_str(),
                         kg::plugin::SandboxError);
  }
}
