#include "egress_world.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <stdexcept>

#include "daemon_fixture.hpp"
#include "test_network.hpp"

namespace kg::test::egress {
namespace {

namespace fs = std::filesystem;
using sandbox::testing::TestNetwork;

void write_hosts_file(const fs::path& scratch) {
  const auto file = scratch / "hosts";
  std::ofstream(file) << "127.0.0.1 localhost\n::1 localhost\n"
                      << "198.51.100.1 " << kStorageHost << " " << kUnlistedHost << "\n"
                      << "127.0.0.1 " << kLoopbackHost << "\n"
                      << "10.1.2.3 " << kPrivateHost << "\n"
                      << "169.254.169.254 " << kMetadataHost << "\n"
                      << "198.51.100.2 " << kHostSelfHost << "\n"
                      << "198.51.100.1 " << kMixedHost << "\n"
                      // The real API name, so the default allowlist admits the fake's HTTPS.
                      << "198.51.100.1 storage.googleapis.com\n"
                      << kPubsubAddress << " " << kPubsubName << "\n"
                      << "10.1.2.3 " << kMixedHost << "\n";
  if (::mount(file.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
    throw std::runtime_error("bind-mounting the test's /etc/hosts failed");
  }
}

// A self-signed certificate for kStorageHost (openssl, which setup.sh installs).
void make_certificate(const fs::path& scratch) {
  const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout " +
                              (scratch / "key.pem").string() + " -out " +
                              (scratch / "cert.pem").string() + " -subj /CN=" + kStorageHost +
                              " -addext subjectAltName=DNS:" + kStorageHost +
                              ",DNS:storage.googleapis.com,DNS:" + kPubsubName + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("openssl failed: " + command);
  std::ifstream in(scratch / "cert.pem");
  world().certificate_pem.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// fake-gcs-server in the "internet" namespace, with one bucket holding one object, on `port`
// with `scheme`; it dies with this process (PR_SET_PDEATHSIG).
void start_fake_gcs_server(TestNetwork& network, const std::string& scheme, int port) {
  const std::string binary = required_env("KG_FAKE_GCS_SERVER");
  if (!fs::exists(binary)) {
    throw std::runtime_error(binary + " is missing: scripts/setup.sh builds it (go install "
                                      "github.com/fsouza/fake-gcs-server)");
  }
  const auto data = network.scratch() / "gcs-data";
  fs::create_directories(data / kBucket);
  std::ofstream(data / kBucket / kObject) << kObjectText;
  const std::string log = (network.scratch() / ("fake-gcs-server-" + scheme + ".log")).string();
  const std::string certificate = (network.scratch() / "cert.pem").string();
  const std::string key = (network.scratch() / "key.pem").string();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork for fake-gcs-server failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::setns(network.internet(), CLONE_NEWNET) != 0) ::_exit(126);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(out, 2);
    const std::string data_dir = data.string();
    const std::string public_host =
        scheme == "https" ? std::string("storage.googleapis.com")
                          : std::string(kStorageHost) + ":" + std::to_string(port);
    // HTTPS on the "internet" address alone: port 443 of kPubsubAddress is the Pub/Sub peer's.
    const std::string listen_host = scheme == "https" ? sandbox::testing::kInternetAddress : "0.0.0.0";
    ::execl(binary.c_str(), binary.c_str(), "-scheme", scheme.c_str(), "-backend", "memory",
            "-host", listen_host.c_str(), "-port", std::to_string(port).c_str(), "-data", data_dir.c_str(),
            "-public-host", public_host.c_str(), "-cert-location", certificate.c_str(),
            "-private-key-location", key.c_str(), "-log-level", "warn", nullptr);
    ::_exit(127);
  }
  // Wait until it listens (from the host's side, through the veth: the path the proxy takes).
  for (int i = 0; i < 200; ++i) {
    auto socket = network.socket_in(network.host(), AF_INET, SOCK_STREAM);
    const auto where = sandbox::testing::ipv4(sandbox::testing::kInternetAddress, port);
    if (::connect(socket.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0) {
      return;
    }
    ::usleep(50'000);
  }
  throw std::runtime_error("fake-gcs-server did not listen on 198.51.100.1:" +
                           std::to_string(port) + " within 10 s (see " + log + ")");
}

}  // namespace

EgressWorld& world() {
  static EgressWorld instance;
  return instance;
}

void make_world() {
  auto& made = world();
  if (::geteuid() != 0) {
    made.skip_reason = "needs root (network namespaces, a veth pair, a private /etc/hosts)";
    return;
  }
  auto& network = TestNetwork::get();
  write_hosts_file(network.scratch());
  made.host_service_port = network.host_port();
  made.host_service_fd = network.host_listener();
  made.internet_port = network.web_port();
  made.internet_fd = network.web_listener();
  make_certificate(network.scratch());
  // Reached from the host's side through its default route (the veth to the internet side).
  network.run(network.internet(), std::string("ip addr add ") + kPubsubAddress + "/32 dev lo");
  start_fake_gcs_server(network, "http", kStoragePort);
  start_fake_gcs_server(network, "https", kStorageTlsPort);
}

TlsListener internet_listener() {
  const auto& scratch = TestNetwork::get().scratch();
  return {world().internet_fd, scratch / "cert.pem", scratch / "key.pem"};
}

}  // namespace kg::test::egress
