// --reap-strays end to end: the real kode-gopher-sandbox binary alone in a pid namespace
// (bubblewrap), where a `setsid` double fork escapes the group kill and only the reaper catches it.
#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "running_sandbox_server.hpp"
#include "scratch_directory.hpp"
#include "unix_http_client.hpp"

extern char** environ;

namespace {

// The server binary inside `bwrap --unshare-pid`; killed (with its namespace) at scope exit.
class NamespacedServer {
 public:
  // `as_pid_1`: the server is the namespace's pid 1 (as local sandboxes run it); `server_extra`
  // goes after its own arguments.
  NamespacedServer(const std::string& bwrap, const std::string& binary,
                   const std::filesystem::path& workdir, const std::string& socket_path,
                   bool as_pid_1 = false, const std::vector<std::string>& server_extra = {}) {
    std::vector<std::string> arguments{bwrap, "--unshare-pid", "--die-with-parent", "--dev-bind",
                                       "/",   "/",             "--proc",            "/proc"};
    if (as_pid_1) arguments.push_back("--as-pid-1");
    for (const auto& argument : {binary, std::string("--listen"), "unix:" + socket_path,
                                 std::string("--workdir"), workdir.string(),
                                 std::string("--reap-strays")}) {
      arguments.push_back(argument);
    }
    arguments.insert(arguments.end(), server_extra.begin(), server_extra.end());
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    REQUIRE(::posix_spawn(&pid_, bwrap.c_str(), nullptr, nullptr, argv.data(), environ) == 0);
  }
  ~NamespacedServer() {
    ::kill(pid_, SIGKILL);  // --die-with-parent takes the namespace down with it
    ::waitpid(pid_, nullptr, 0);
  }
  NamespacedServer(const NamespacedServer&) = delete;
  NamespacedServer& operator=(const NamespacedServer&) = delete;

 private:
  pid_t pid_ = -1;
};

bool answers(const kg::net::UnixHttpClient& client) {
  for (int tries = 0; tries < 500; ++tries) {
    try {
      if (client.get("/").status == 200) return true;
    } catch (const kg::net::HttpTransportError&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string stdout_of(const kg::net::UnixHttpClient& client, const std::string& body) {
  const auto response = client.request("POST", "/execute", body, {});
  REQUIRE(response.status == 200);
  return kg::sandbox::testing::parse_json(response.body)["stdout"].GetString();
}

constexpr const char* kStrayGoneCheck =
    R"({"command": "pid=$(cat stray.pid); for i in $(seq 200); do state=$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null); if [ -z \"$state\" ] || [ \"$state\" = Z ]; then echo gone; exit 0; fi; sleep 0.05; done; echo alive"})";

}  // namespace

TEST_CASE("--reap-strays kills a setsid double fork that escaped the process group") {
  const char* bwrap = std::getenv("KG_BWRAP");
  const char* binary = std::getenv("KG_SANDBOX_SERVER_BINARY");
  if (bwrap == nullptr || binary == nullptr) {
    MESSAGE("KG_BWRAP or KG_SANDBOX_SERVER_BINARY is not set (meson sets both when bwrap is "
            "installed): test not run");
    return;
  }
  kg::sandbox::testing::ScratchDirectory scratch;
  std::filesystem::create_directory(scratch.path() / "app");
  const std::string socket_path = (scratch.path() / "sandbox.sock").string();
  NamespacedServer server(bwrap, binary, scratch.path() / "app", socket_path);
  const kg::net::UnixHttpClient client(socket_path);
  REQUIRE_MESSAGE(answers(client), "the server in bwrap did not come up");

  const auto escaped = client.request(
      "POST", "/execute",
      R"({"command": "setsid sh -c 'sleep 100 & echo $! > stray.pid'; echo spawned"})", {});
  REQUIRE(escaped.status == 200);
  CHECK(std::string(kg::sandbox::testing::parse_json(escaped.body)["stdout"].GetString()) ==
        "spawned\n");

  // Looked at from inside the namespace, where stray.pid means something.
  const auto check = client.request(
      "POST", "/execute",
      R"({"command": "pid=$(cat stray.pid); for i in $(seq 200); do state=$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null); if [ -z \"$state\" ] || [ \"$state\" = Z ]; then echo gone; exit 0; fi; sleep 0.05; done; echo alive"})",
      {});
  REQUIRE(check.status == 200);
  CHECK(std::string(kg::sandbox::testing::parse_json(check.body)["stdout"].GetString()) ==
        "gone\n");
}

TEST_CASE("as pid 1 with a command launcher: strays die, the launcher lives, and a command that "
          "kills it cannot stop the next") {
  const char* bwrap = std::getenv("KG_BWRAP");
  const char* binary = std::getenv("KG_SANDBOX_SERVER_BINARY");
  if (bwrap == nullptr || binary == nullptr) {
    MESSAGE("KG_BWRAP or KG_SANDBOX_SERVER_BINARY is not set (meson sets both when bwrap is "
            "installed): test not run");
    return;
  }
  kg::sandbox::testing::ScratchDirectory scratch;
  std::filesystem::create_directory(scratch.path() / "app");
  const std::string socket_path = (scratch.path() / "sandbox.sock").string();
  // Stands in for cgroup.procs: one "0" per launcher that joined. Inherited by the server.
  const auto joins_file = scratch.path() / "cgroup.procs";
  const int joins_fd = ::open(joins_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  REQUIRE(joins_fd >= 0);
  const auto joins = [&] {
    std::ifstream in(joins_file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str().size();
  };
  NamespacedServer server(bwrap, binary, scratch.path() / "app", socket_path, true,
                          {"--command-cgroup-fd", std::to_string(joins_fd)});
  ::close(joins_fd);
  const kg::net::UnixHttpClient client(socket_path);
  REQUIRE_MESSAGE(answers(client), "the server in bwrap did not come up");

  CHECK(stdout_of(client, R"({"command": "cut -d' ' -f4 /proc/$$/stat"})") == "1\n");
  CHECK(stdout_of(client, R"({"command": "setsid sh -c 'sleep 100 & echo $! > stray.pid'; echo spawned"})") ==
        "spawned\n");
  CHECK(stdout_of(client, kStrayGoneCheck) == "gone\n");
  CHECK(joins() == 1);  // one launcher for all three commands

  // kill(-1) from a command reaches every process but pid 1 and itself: the launcher too.
  CHECK(stdout_of(client, R"({"command": "kill -9 -1; echo killed"})") == "killed\n");
  CHECK(stdout_of(client, R"({"command": "setsid sh -c 'sleep 100 & echo $! > stray.pid'; echo again"})") ==
        "again\n");
  CHECK(stdout_of(client, kStrayGoneCheck) == "gone\n");
  CHECK(joins() == 2);
}
