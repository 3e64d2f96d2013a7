// --reap-strays end to end: the real kode-gopher-sandbox binary alone in a pid namespace
// (bubblewrap), where a `setsid` double fork escapes the group kill and only the reaper catches it.
#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <thread>

#include "running_sandbox_server.hpp"
#include "scratch_directory.hpp"
#include "unix_http_client.hpp"

extern char** environ;

namespace {

// The server binary inside `bwrap --unshare-pid`; killed (with its namespace) at scope exit.
class NamespacedServer {
 public:
  NamespacedServer(const std::string& bwrap, const std::string& binary,
                   const std::filesystem::path& workdir, const std::string& socket_path) {
    std::vector<std::string> arguments{bwrap,  "--unshare-pid", "--die-with-parent", "--dev-bind",
                                       "/",    "/",             "--proc",            "/proc",
                                       binary, "--listen",      "unix:" + socket_path,
                                       "--workdir", workdir.string(), "--reap-strays"};
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
