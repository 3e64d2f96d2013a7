#include "pubsub_peer.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "daemon_fixture.hpp"
#include "egress_world.hpp"
#include "test_network.hpp"
#include "../support/test_json.hpp"

namespace kg::test::egress {
namespace {

namespace fs = std::filesystem;
using sandbox::testing::TestNetwork;

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string member(const rapidjson::Value& object, const char* name) {
  return object.IsObject() && object.HasMember(name) && object[name].IsString()
             ? object[name].GetString()
             : "";
}

}  // namespace

PubsubPeer::PubsubPeer(const std::string& folder)
    : record_(folder + "/pubsub-calls.jsonl"), log_(folder + "/pstest-tls.log") {
  const std::string binary = required_env("KG_PSTEST_TLS");
  if (!fs::exists(binary)) {
    throw std::runtime_error(binary + " is missing: scripts/setup.sh --tests builds it "
                                      "(tests/tools/pstest_tls)");
  }
  auto& network = TestNetwork::get();
  const std::string certificate = (network.scratch() / "cert.pem").string();
  const std::string key = (network.scratch() / "key.pem").string();
  const std::string listen = std::string(kPubsubAddress) + ":443";
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork for pstest-tls failed");
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::setns(network.internet(), CLONE_NEWNET) != 0) ::_exit(126);
    const int out = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execl(binary.c_str(), binary.c_str(), "-listen", listen.c_str(), "-cert",
            certificate.c_str(), "-key", key.c_str(), "-record", record_.c_str(), nullptr);
    ::_exit(127);
  }
  // Until it listens, from the host's side (the path the egress proxy takes).
  for (int i = 0; i < 200; ++i) {
    auto socket = network.socket_in(network.host(), AF_INET, SOCK_STREAM);
    const auto where = sandbox::testing::ipv4(kPubsubAddress, 443);
    if (::connect(socket.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("pstest-tls exited while starting:\n" + text_of(log_));
    }
    ::usleep(50'000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  throw std::runtime_error("pstest-tls did not listen on " + listen + " within 10 s:\n" + text_of(log_));
}

PubsubPeer::~PubsubPeer() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::vector<PubsubCall> PubsubPeer::calls() const {
  std::vector<PubsubCall> calls;
  std::istringstream lines(text_of(record_));
  std::string line;
  while (std::getline(lines, line)) {
    const auto record = test_json(line);
    calls.push_back({member(record, "method"), member(record, "authorization"),
                     member(record, "request_params")});
  }
  return calls;
}

}  // namespace kg::test::egress
