// EgressNetwork end to end: a real bubblewrap sandbox gets slirp4netns, inside namespaces this
// test makes (test_network.hpp), and every connection is made from a socket that lives in the
// sandbox's network namespace.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "egress_network.hpp"
#include "error_chain.hpp"
#include "test_network.hpp"

namespace kg::sandbox {
namespace {

using namespace std::chrono_literals;
using testing::BwrapSandbox;
using testing::ConnectOutcome;
using testing::TestNetwork;

// A refusal must come from the kernel at once, not from a timeout.
constexpr auto kFast = 1000ms;
constexpr auto kGiveUp = 3000ms;

bool refused_by_policy(const ConnectOutcome& outcome) {
  return !outcome.connected && outcome.elapsed < kFast &&
         (outcome.error == EACCES || outcome.error == EPERM || outcome.error == ENETUNREACH ||
          outcome.error == EHOSTUNREACH || outcome.error == ECONNREFUSED);
}

ConnectOutcome connect_from(TestNetwork& network, int netns, const std::string& address,
                            int port) {
  auto socket = network.socket_in(netns, AF_INET, SOCK_STREAM);
  const auto where = testing::ipv4(address, port);
  return testing::connect_with_timeout(socket.get(), reinterpret_cast<const sockaddr*>(&where),
                                       sizeof where, kGiveUp);
}

ConnectOutcome connect6_from(TestNetwork& network, int netns, const std::string& address,
                             int port, const char* interface = nullptr) {
  auto socket = network.socket_in(netns, AF_INET6, SOCK_STREAM);
  sockaddr_in6 where{};
  where.sin6_family = AF_INET6;
  where.sin6_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET6, address.c_str(), &where.sin6_addr);
  if (interface != nullptr) {
    where.sin6_scope_id = network.inside(netns, [&] { return ::if_nametoindex(interface); });
  }
  return testing::connect_with_timeout(socket.get(), reinterpret_cast<const sockaddr*>(&where),
                                       sizeof where, kGiveUp);
}

EgressNetwork attach(TestNetwork& network, const BwrapSandbox& sandbox,
                     EgressNetworkOptions options = {}) {
  options.log_path = (network.scratch() / "slirp4netns.log").string();
  try {
    return EgressNetwork::attach(sandbox.child_pid(), network.spawner(), options);
  } catch (const std::exception& error) {
    FAIL(describe_error_chain(error));
    throw;
  }
}

TEST_CASE("the test's own network reaches every address the sandbox must not") {
  // Without this, a refusal below could be the test network's fault instead of the policy's.
  auto& network = TestNetwork::get();
  for (const auto& address : testing::kForbiddenInternetAddresses) {
    CAPTURE(address);
    CHECK(connect_from(network, network.host(), address, network.web_port()).connected);
  }
  CHECK(TestNetwork::drain(network.web_listener(), 1000ms).size() ==
        testing::kForbiddenInternetAddresses.size());
}

TEST_CASE("an egress sandbox reaches the internet and its DNS, and nothing of the host's") {
  auto& network = TestNetwork::get();
  BwrapSandbox sandbox(network);
  auto egress = attach(network, sandbox);
  const int inside = sandbox.netns();

  SUBCASE("the host's loopback services are out of reach") {
    // 10.0.2.2 is slirp4netns's alias for the host's 127.0.0.1.
    const auto via_gateway = connect_from(network, inside, "10.0.2.2", network.host_port());
    CHECK_MESSAGE(refused_by_policy(via_gateway), via_gateway.describe());
    CHECK(via_gateway.error == EACCES);  // by the rules, not only by --disable-host-loopback
    // 127.0.0.1 inside is the sandbox's own loopback, where nothing listens.
    const auto own_loopback = connect_from(network, inside, "127.0.0.1", network.host_port());
    CHECK_MESSAGE(own_loopback.error == ECONNREFUSED, own_loopback.describe());
    // slirp4netns connects from the host's namespace, where the host's own address is local.
    const auto host_address =
        connect_from(network, inside, testing::kHostAddress, network.host_port());
    CHECK_MESSAGE(refused_by_policy(host_address), host_address.describe());
    CHECK(TestNetwork::drain(network.host_listener(), 200ms).empty());
  }

  SUBCASE("metadata, private, shared and link-local addresses are refused at once") {
    for (const auto& address : testing::kForbiddenInternetAddresses) {
      const auto outcome = connect_from(network, inside, address, network.web_port());
      CAPTURE(address);
      CHECK_MESSAGE(refused_by_policy(outcome), outcome.describe(), " after ",
                    outcome.elapsed.count(), " ms");
      CHECK(outcome.error == EACCES);
    }
    // Only port 53 of slirp4netns's DNS address is allowed (older libslirp forwarded every
    // port of it to the host's resolver address).
    const auto dns_other_port = connect_from(network, inside, "10.0.2.3", network.web_port());
    CHECK_MESSAGE(refused_by_policy(dns_other_port), dns_other_port.describe());
    CHECK(dns_other_port.error == EACCES);  // by the rules, not only by libslirp
    CHECK(TestNetwork::drain(network.web_listener(), 200ms).empty());
  }

  SUBCASE("IPv6 link-local and unique local addresses are refused at once") {
    const auto unique_local = connect6_from(network, inside, "fd00:ec2::254", 80);
    CHECK_MESSAGE(refused_by_policy(unique_local), unique_local.describe());
    CHECK(unique_local.error == EACCES);
    const auto link_local = connect6_from(network, inside, "fe80::2", 80, "tap0");
    CHECK_MESSAGE(refused_by_policy(link_local), link_local.describe());
    CHECK(link_local.error == EACCES);
  }

  SUBCASE("a public address is reached, through slirp4netns on the host") {
    const auto outcome =
        connect_from(network, inside, testing::kInternetAddress, network.web_port());
    CHECK_MESSAGE(outcome.connected, outcome.describe());
    const auto peers = TestNetwork::drain(network.web_listener(), 2000ms);
    REQUIRE(peers.size() == 1);
    CHECK(peers[0] == testing::kHostAddress);
  }

  SUBCASE("DNS through slirp4netns reaches the host's resolver, even on a private address") {
    auto socket = network.socket_in(inside, AF_INET, SOCK_DGRAM);
    const auto dns = testing::ipv4(kEgressDnsAddress, 53);
    const std::string query = "kg-egress-dns-query";
    REQUIRE(::sendto(socket.get(), query.data(), query.size(), 0,
                     reinterpret_cast<const sockaddr*>(&dns), sizeof dns) ==
            static_cast<ssize_t>(query.size()));
    pollfd resolver{network.dns_udp(), POLLIN, 0};
    REQUIRE(::poll(&resolver, 1, 3000) == 1);
    char received[64] = {};
    sockaddr_in from{};
    socklen_t from_size = sizeof from;
    const auto got = ::recvfrom(network.dns_udp(), received, sizeof received, 0,
                                reinterpret_cast<sockaddr*>(&from), &from_size);
    CHECK(std::string(received, got > 0 ? got : 0) == query);
    const std::string answer = "kg-egress-dns-answer";
    ::sendto(network.dns_udp(), answer.data(), answer.size(), 0,
             reinterpret_cast<const sockaddr*>(&from), from_size);
    pollfd reply{socket.get(), POLLIN, 0};
    REQUIRE(::poll(&reply, 1, 3000) == 1);
    char back[64] = {};
    const auto back_size = ::recv(socket.get(), back, sizeof back, 0);
    CHECK(std::string(back, back_size > 0 ? back_size : 0) == answer);

    const auto over_tcp = connect_from(network, inside, kEgressDnsAddress, 53);
    CHECK_MESSAGE(over_tcp.connected, over_tcp.describe());
    CHECK(TestNetwork::drain(network.dns_tcp(), 2000ms).size() == 1);
  }

  SUBCASE("an address of the sandbox's own stays usable, even in a refused range") {
    // Where a metadata emulator inside the sandbox would listen: rules come after "local".
    network.run(inside, "ip addr add 169.254.169.254/32 dev lo");
    auto listener = network.bound_socket(inside, SOCK_STREAM, "169.254.169.254", 0);
    const auto outcome =
        connect_from(network, inside, "169.254.169.254", TestNetwork::port_of(listener.get()));
    CHECK_MESSAGE(outcome.connected, outcome.describe());
  }

  SUBCASE("destroying it stops slirp4netns and the sandbox loses the internet") {
    const pid_t helper = egress.helper_pid();
    REQUIRE(::kill(helper, 0) == 0);
    { EgressNetwork gone = std::move(egress); }
    CHECK(::kill(helper, 0) == -1);
    const auto outcome =
        connect_from(network, inside, testing::kInternetAddress, network.web_port());
    CHECK_FALSE(outcome.connected);
    CHECK(TestNetwork::drain(network.web_listener(), 200ms).empty());
  }
}

TEST_CASE("a root daemon runs slirp4netns as the sandbox's host user where the tun device allows") {
  auto& network = TestNetwork::get();
  if (!network.real_root()) {
    MESSAGE("skipped: only a root daemon starts sandboxes as another user");
    return;
  }
  constexpr uid_t kHostUid = 65534;
  BwrapSandbox sandbox(network, kHostUid);
  EgressNetworkOptions options;
  options.uid = kHostUid;
  auto egress = attach(network, sandbox, options);
  const bool tun_for_everyone = (std::filesystem::status("/dev/net/tun").permissions() &
                                 std::filesystem::perms::others_write) !=
                                std::filesystem::perms::none;
  MESSAGE("/dev/net/tun " << std::string(tun_for_everyone ? "is" : "is not")
                          << " usable by everyone: slirp4netns runs as uid "
                          << egress.helper_uid());
  CHECK(egress.helper_uid() == (tun_for_everyone ? kHostUid : 0));
  std::ifstream status("/proc/" + std::to_string(egress.helper_pid()) + "/status");
  std::string line;
  while (std::getline(status, line) && !line.starts_with("Uid:")) {
  }
  CHECK(line.find("\t" + std::to_string(egress.helper_uid()) + "\t") != std::string::npos);
  const auto outcome =
      connect_from(network, sandbox.netns(), testing::kInternetAddress, network.web_port());
  CHECK_MESSAGE(outcome.connected, outcome.describe());
  CHECK(TestNetwork::drain(network.web_listener(), 2000ms).size() == 1);
  const auto refused =
      connect_from(network, sandbox.netns(), "169.254.169.254", network.web_port());
  CHECK(refused.error == EACCES);
}

TEST_CASE("attach fails with the reason when the sandbox is gone or slirp4netns is missing") {
  auto& network = TestNetwork::get();
  EgressNetworkOptions options;
  options.log_path = (network.scratch() / "slirp4netns.log").string();
  {
    BwrapSandbox sandbox(network);
    options.slirp4netns_program = "kg-no-such-slirp4netns";
    try {
      (void)EgressNetwork::attach(sandbox.child_pid(), network.spawner(), options);
      FAIL("attach succeeded without slirp4netns");
    } catch (const std::exception& error) {
      const auto text = describe_error_chain(error);
      CHECK_MESSAGE(text.find("install slirp4netns") != std::string::npos, text);
    }
  }
  options.slirp4netns_program = "slirp4netns";
  pid_t exited = 0;
  {
    BwrapSandbox sandbox(network);
    exited = sandbox.child_pid();
  }
  try {
    (void)EgressNetwork::attach(exited, network.spawner(), options);
    FAIL("attach succeeded for a sandbox that exited");
  } catch (const std::exception& error) {
    const auto text = describe_error_chain(error);
    CHECK_MESSAGE(text.find("has the sandbox exited?") != std::string::npos, text);
  }
}

TEST_CASE("attach is quick enough to add to every sandbox start") {
  auto& network = TestNetwork::get();
  std::vector<double> milliseconds;
  for (int round = 0; round < 5; ++round) {
    BwrapSandbox sandbox(network);
    const auto start = std::chrono::steady_clock::now();
    auto egress = attach(network, sandbox);
    milliseconds.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count());
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  MESSAGE("EgressNetwork::attach: min " << milliseconds.front() << " ms, median "
                                        << milliseconds[2] << " ms, max " << milliseconds.back()
                                        << " ms");
  CHECK(milliseconds[2] < 1000.0);
}

}  // namespace
}  // namespace kg::sandbox
