// A small private internet for the egress tests, made of network namespaces this test process
// creates, so the host's real network is never touched:
//
//   "host"      the test process's own new network namespace, where slirp4netns runs: lo with
//               a listener (the host's loopback services), veth kg-host 198.51.100.2/24,
//               default route via 198.51.100.1
//   "internet"  veth kg-net 198.51.100.1/24 plus, on lo, one address in each range a sandbox
//               must not reach (169.254.169.254, 10.1.2.3, ...); a TCP listener on every
//               address, and a DNS stand-in (udp+tcp port 53) that the host's /etc/resolv.conf
//               names (as 192.168.1.1: a resolver on a private address, as at home)
//   "sandbox"   bubblewrap with the namespace flags of local sandboxes (EgressNetwork's target)
//
// The process enters its namespaces once, before any thread exists (user namespaces and mount
// namespaces require that), so every test in the executable shares one TestNetwork. Tests only.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "process_spawner.hpp"

namespace kg::sandbox::testing {

inline constexpr const char* kInternetAddress = "198.51.100.1";  // public-looking (TEST-NET-2)
inline constexpr const char* kHostAddress = "198.51.100.2";
inline constexpr const char* kResolverAddress = "192.168.1.1";
// Addresses on the internet side in ranges a sandbox must not reach.
inline const std::vector<std::string> kForbiddenInternetAddresses = {
    "169.254.169.254", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "168.63.129.16"};

[[noreturn]] inline void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

struct ConnectOutcome {
  bool connected = false;
  int error = 0;  // errno when not connected (ETIMEDOUT when nothing answered in time)
  std::chrono::milliseconds elapsed{0};
  std::string describe() const {
    return connected ? "connected" : std::string(std::strerror(error));
  }
};

// One TCP connection attempt, given up after timeout.
inline ConnectOutcome connect_with_timeout(int fd, const sockaddr* address, socklen_t size,
                                           std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  ConnectOutcome outcome;
  if (::connect(fd, address, size) == 0) {
    outcome.connected = true;
  } else if (errno != EINPROGRESS) {
    outcome.error = errno;
  } else {
    pollfd entry{fd, POLLOUT, 0};
    if (::poll(&entry, 1, static_cast<int>(timeout.count())) != 1) {
      outcome.error = ETIMEDOUT;
    } else {
      socklen_t length = sizeof outcome.error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &outcome.error, &length);
      outcome.connected = outcome.error == 0;
    }
  }
  outcome.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return outcome;
}

inline sockaddr_in ipv4(const std::string& address, int port) {
  sockaddr_in result{};
  result.sin_family = AF_INET;
  result.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &result.sin_addr) != 1) {
    throw std::invalid_argument("not an IPv4 address: " + address);
  }
  return result;
}

class TestNetwork {
 public:
  // The one network of this process (made on first use, before any thread starts).
  static TestNetwork& get() {
    static TestNetwork network;
    return network;
  }

  ~TestNetwork() {
    spawner_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(scratch_, ignored);
  }

  // Whether this process runs as the real root (no user namespace of the test's own).
  bool real_root() const { return real_root_; }
  int host() const { return host_.get(); }
  int internet() const { return internet_.get(); }
  ProcessSpawner& spawner() { return *spawner_; }
  const std::filesystem::path& scratch() const { return scratch_; }
  int web_port() const { return web_port_; }
  int host_port() const { return host_port_; }
  int web_listener() const { return web_listener_.get(); }
  int host_listener() const { return host_listener_.get(); }
  int dns_udp() const { return dns_udp_.get(); }
  int dns_tcp() const { return dns_tcp_.get(); }

  // Runs fn with the calling thread in network namespace netns, then returns to "host".
  template <typename Fn>
  auto inside(int netns, Fn fn) {
    if (::setns(netns, CLONE_NEWNET) != 0) fail("setns into a test network namespace");
    struct Back {
      int host;
      ~Back() { ::setns(host, CLONE_NEWNET); }
    } back{host_.get()};
    return fn();
  }

  // A shell command run inside netns; throws with the command when it fails.
  void run(int netns, const std::string& command) {
    inside(netns, [&] {
      if (std::system((command + " 2>&1").c_str()) != 0) {
        throw std::runtime_error("test network set-up failed: " + command);
      }
      return 0;
    });
  }

  Fd socket_in(int netns, int domain, int type) {
    return inside(netns, [&] {
      const int fd = ::socket(domain, type | SOCK_CLOEXEC, 0);
      if (fd < 0) fail("socket");
      return Fd(fd);
    });
  }

  // A socket bound to address:port (0: any free port) in netns; TCP ones listen.
  Fd bound_socket(int netns, int type, const std::string& address, int port) {
    Fd fd = socket_in(netns, AF_INET, type);
    const int yes = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    auto where = ipv4(address, port);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&where), sizeof where) != 0) {
      fail("bind " + address + ":" + std::to_string(port));
    }
    if (type == SOCK_STREAM && ::listen(fd.get(), 64) != 0) fail("listen");
    return fd;
  }

  static int port_of(int fd) {
    sockaddr_in where{};
    socklen_t size = sizeof where;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&where), &size);
    return ntohs(where.sin_port);
  }

  // Accepts every pending connection on a listener; returns the peers' addresses.
  static std::vector<std::string> drain(int listener, std::chrono::milliseconds wait = {}) {
    std::vector<std::string> peers;
    pollfd entry{listener, POLLIN, 0};
    while (::poll(&entry, 1, peers.empty() ? static_cast<int>(wait.count()) : 0) == 1) {
      sockaddr_in peer{};
      socklen_t size = sizeof peer;
      const int fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &size, SOCK_CLOEXEC);
      if (fd < 0) break;
      ::close(fd);
      char text[INET_ADDRSTRLEN] = {};
      ::inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
      peers.emplace_back(text);
    }
    return peers;
  }

 private:
  TestNetwork() : real_root_(::geteuid() == 0) {
    enter_own_namespaces();
    make_scratch();
    point_resolver_at(kResolverAddress);
    host_ = open_netns();
    if (::unshare(CLONE_NEWNET) != 0) fail("unshare(CLONE_NEWNET) for the internet");
    internet_ = open_netns();
    if (::setns(host_.get(), CLONE_NEWNET) != 0) fail("setns back to the host namespace");
    wire();
    web_listener_ = bound_socket(internet(), SOCK_STREAM, "0.0.0.0", 0);
    web_port_ = port_of(web_listener_.get());
    dns_udp_ = bound_socket(internet(), SOCK_DGRAM, "0.0.0.0", 53);
    dns_tcp_ = bound_socket(internet(), SOCK_STREAM, "0.0.0.0", 53);
    host_listener_ = bound_socket(host(), SOCK_STREAM, "0.0.0.0", 0);
    host_port_ = port_of(host_listener_.get());
    // The first thread starts here, after every namespace change that needs a lone thread.
    spawner_ = std::make_unique<ProcessSpawner>();
  }

  // As root, a new network and mount namespace (the daemon's situation when it runs as root);
  // otherwise also a user namespace in which this process is root.
  static void enter_own_namespaces() {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    const int flags = CLONE_NEWNET | CLONE_NEWNS | (uid == 0 ? 0 : CLONE_NEWUSER);
    if (::unshare(flags) != 0) {
      fail("unshare(network, mount" + std::string(uid == 0 ? "" : ", user") +
           " namespaces): the egress tests need namespaces (bubblewrap needs them too)");
    }
    if (uid != 0) {
      std::ofstream("/proc/self/setgroups") << "deny";
      std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
      std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      fail("making the test's mounts private");
    }
  }

  void make_scratch() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base ? base : "/tmp") +
                          "/kg-egress-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) fail("mkdtemp " + pattern);
    scratch_ = pattern;
  }

  // The "host's" resolver, as slirp4netns reads it: a bind mount in this test's mount namespace.
  void point_resolver_at(const std::string& address) {
    const auto file = scratch_ / "resolv.conf";
    std::ofstream(file) << "nameserver " << address << "\n";
    if (::mount(file.c_str(), "/etc/resolv.conf", nullptr, MS_BIND, nullptr) != 0) {
      fail("bind-mounting a test resolv.conf over /etc/resolv.conf");
    }
  }

  static Fd open_netns() {
    const int fd = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("open /proc/thread-self/ns/net");
    return Fd(fd);
  }

  void wire() {
    const std::string internet_path =
        "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(internet_.get());
    // The descriptor must survive exec for ip to open its /proc path.
    ::fcntl(internet_.get(), F_SETFD, 0);
    run(host(), "ip link set lo up && ip link add kg-host type veth peer name kg-net && "
                "ip link set kg-net netns " + internet_path + " && "
                "ip addr add " + std::string(kHostAddress) + "/24 dev kg-host && "
                "ip link set kg-host up && ip route add default via " + kInternetAddress);
    ::fcntl(internet_.get(), F_SETFD, FD_CLOEXEC);
    std::string internet_setup = "ip link set lo up && ip addr add " +
                                 std::string(kInternetAddress) + "/24 dev kg-net && " +
                                 "ip link set kg-net up";
    for (const auto& address : kForbiddenInternetAddresses) {
      internet_setup += " && ip addr add " + address + "/32 dev lo";
    }
    run(internet(), internet_setup);
  }

  bool real_root_;
  std::filesystem::path scratch_;
  Fd host_, internet_;
  Fd web_listener_, host_listener_, dns_udp_, dns_tcp_;
  int web_port_ = 0, host_port_ = 0;
  std::unique_ptr<ProcessSpawner> spawner_;
};

// A bubblewrap sandbox with local sandboxes' namespace flags, idling; killed when destroyed.
class BwrapSandbox {
 public:
  // host_uid: start bubblewrap as this user, as a root daemon does ([sandbox] host_uid).
  explicit BwrapSandbox(TestNetwork& network, std::optional<uid_t> host_uid = std::nullopt) {
    int info[2];
    if (::pipe2(info, O_CLOEXEC) != 0) fail("pipe2");
    Fd info_read(info[0]);
    {
      Fd info_write(info[1]);
      const std::vector<std::string> argv = {
          "bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
          "--unshare-uts", "--uid", "1000", "--gid", "1000", "--die-with-parent",
          "--new-session", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
          "--info-fd", "3", "sleep", "600"};
      SpawnOptions options;
      options.inherited_fds = {{info_write.get(), 3}};
      options.uid = host_uid;
      options.gid = host_uid;
      pid_ = network.spawner().spawn(argv, (network.scratch() / "bwrap.log").string(), options);
    }
    std::string text;
    char buffer[512];
    ssize_t got;
    while ((got = ::read(info_read.get(), buffer, sizeof buffer)) > 0) text.append(buffer, got);
    const auto key = text.find("\"child-pid\":");
    if (key == std::string::npos) {
      throw std::runtime_error("bubblewrap reported no child-pid: '" + text + "' (see " +
                               (network.scratch() / "bwrap.log").string() + ")");
    }
    child_pid_ = std::atoi(text.c_str() + key + 12);
    netns_ = Fd(::open(("/proc/" + std::to_string(child_pid_) + "/ns/net").c_str(),
                       O_RDONLY | O_CLOEXEC));
    if (netns_.get() < 0) fail("open the sandbox's network namespace");
  }
  // Kills the sandbox's init first: bubblewrap's --die-with-parent does not reach a child that
  // has not armed it yet, and this host's pid 1 does not reap orphans. bubblewrap then reaps
  // its child and exits by itself.
  ~BwrapSandbox() {
    if (child_pid_ > 0) ::kill(child_pid_, SIGKILL);
    int status = 0;
    for (int i = 0; i < 200; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
      ::usleep(10'000);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  BwrapSandbox(const BwrapSandbox&) = delete;
  BwrapSandbox& operator=(const BwrapSandbox&) = delete;

  pid_t child_pid() const { return child_pid_; }
  int netns() const { return netns_.get(); }

 private:
  pid_t pid_ = -1;
  pid_t child_pid_ = -1;
  Fd netns_;
};

}  // namespace kg::sandbox::testing
