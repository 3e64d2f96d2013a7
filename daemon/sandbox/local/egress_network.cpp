#include "egress_network.hpp"

#include "owned_fd.hpp"
#include "program_path.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "netns_route_rules.hpp"

namespace kg::sandbox {
namespace {

// Descriptor numbers slirp4netns gets (its command line names them).
constexpr int kReadyFd = 3;
constexpr int kExitFd = 4;
constexpr int kUserNamespaceFd = 5;
constexpr int kNetworkNamespaceFd = 6;
constexpr const char* kTunDevice = "/dev/net/tun";

bool on_path(const std::string& program) { return find_program(program).has_value(); }

// Whether a user can open /dev/net/tun, as slirp4netns must (some machines keep it root-only).
bool tun_usable_by(uid_t user, gid_t group) {
  if (user == ::geteuid()) return ::access(kTunDevice, R_OK | W_OK) == 0;
  struct stat device {};
  if (::stat(kTunDevice, &device) != 0) return false;
  return user == 0 || (device.st_uid == user && (device.st_mode & 0600) == 0600) ||
         (device.st_gid == group && (device.st_mode & 0060) == 0060) ||
         (device.st_mode & 0006) == 0006;
}

std::string tun_problem() {
  struct stat device {};
  if (::stat(kTunDevice, &device) != 0) {
    return std::string(kTunDevice) + " is missing (" + std::strerror(errno) +
           "): load the tun module (modprobe tun)";
  }
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(device.st_mode & 07777));
  return "slirp4netns cannot open " + std::string(kTunDevice) + " as uid " +
         std::to_string(::geteuid()) + " (mode " + mode + ", owner uid " +
         std::to_string(device.st_uid) +
         "): make it usable by everyone (chmod 0666 /dev/net/tun, as Debian's udev rules do) "
         "or run the daemon as root";
}

// The user namespace that owns a network namespace. bubblewrap nests a second user namespace
// for the sandbox's uid (with --dev), so /proc/PID/ns/user is not the owner; this is.
OwnedFd owning_user_namespace(int netns_fd) {
  const int fd = ::ioctl(netns_fd, NS_GET_USERNS);
  if (fd < 0) {
    throw std::runtime_error(std::string("Cannot find the user namespace that owns the "
                                         "sandbox's network namespace (NS_GET_USERNS): ") +
                             std::strerror(errno));
  }
  return OwnedFd(fd);
}

bool is_own_user_namespace(int userns_fd) {
  struct stat target {}, own {};
  return ::fstat(userns_fd, &target) == 0 && ::stat("/proc/self/ns/user", &own) == 0 &&
         target.st_ino == own.st_ino && target.st_dev == own.st_dev;
}

// The last few lines of slirp4netns's log, skipping its standing seccomp warning.
std::string log_tail(const std::string& path) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with("WARNING: Support for seccomp is experimental")) continue;
    last.push_back(line);
    if (last.size() > 3) last.pop_front();
  }
  std::string text;
  for (const auto& line : last) text += (text.empty() ? "" : " | ") + line;
  return text.empty() ? "no output" : text;
}

void kill_and_reap(pid_t pid) noexcept {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Waits for slirp4netns's "1" on its --ready-fd. Throws (after reaping it) when it exits first
// or takes longer than timeout.
void wait_until_ready(pid_t pid, int ready_fd, const EgressNetworkOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.ready_timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd entry{ready_fd, POLLIN, 0};
    const int polled = left.count() > 0 ? ::poll(&entry, 1, static_cast<int>(left.count())) : 0;
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      kill_and_reap(pid);
      throw std::runtime_error("slirp4netns did not configure the sandbox's network within " +
                               std::to_string(options.ready_timeout.count()) +
                               " ms (its log: " + log_tail(options.log_path) + ")");
    }
    char byte = 0;
    const ssize_t got = ::read(ready_fd, &byte, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got == 1 && byte == '1') return;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error(
        "slirp4netns exited before the sandbox's network was up (" +
        (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                           : "wait status " + std::to_string(status)) +
        "): " + log_tail(options.log_path));
  }
}

}  // namespace

EgressNetwork EgressNetwork::attach(pid_t sandbox_pid, ProcessSpawner& spawner,
                                    const EgressNetworkOptions& options) {
  try {
    if (!on_path(options.slirp4netns_program)) {
      throw std::runtime_error(options.slirp4netns_program +
                               " is not installed (not found on PATH): install slirp4netns "
                               "(Debian/Ubuntu: apt-get install slirp4netns) or set "
                               "[sandbox] network = none");
    }
    // The helper runs as options.uid where that user can open the tun device, else as the
    // daemon's own user.
    const gid_t gid = options.gid.value_or(options.uid ? static_cast<gid_t>(*options.uid) : 0);
    const bool as_other_user = options.uid && *options.uid != ::geteuid() &&
                               tun_usable_by(*options.uid, gid);
    if (!as_other_user && !tun_usable_by(::geteuid(), ::getegid())) {
      throw std::runtime_error(tun_problem());
    }
    const std::string netns_path = "/proc/" + std::to_string(sandbox_pid) + "/ns/net";
    const OwnedFd netns(::open(netns_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (netns.get() < 0) {
      throw std::runtime_error("Cannot open " + netns_path + " (has the sandbox exited?): " +
                               std::strerror(errno));
    }
    const OwnedFd userns = owning_user_namespace(netns.get());
    const bool join_userns = !is_own_user_namespace(userns.get());

    // The rules go in before the network comes up, so there is no moment without them. The
    // gateway's exception lets slirp4netns add its default route (the kernel checks a route's
    // gateway against the rules) and goes once it has; until then slirp4netns's own
    // --disable-host-loopback refuses connections to it.
    const int owner_userns = join_userns ? userns.get() : -1;
    auto rules = egress_route_rules(host_interface_addresses());
    const std::vector<RouteRule> while_configuring = {gateway_rule_while_configuring()};
    std::vector<RouteRule> initial = while_configuring;
    initial.insert(initial.end(), rules.begin(), rules.end());
    change_route_rules(netns.get(), owner_userns, initial, RuleChange::add);

    auto [ready_read, ready_write] = make_cloexec_pipe();
    auto [exit_read, exit_write] = make_cloexec_pipe();
    const uid_t helper_uid = as_other_user ? *options.uid : ::geteuid();
    std::vector<std::string> argv = {
        options.slirp4netns_program, "--configure", "--mtu=65520", "--disable-host-loopback",
        "--enable-seccomp", "--ready-fd=" + std::to_string(kReadyFd),
        "--exit-fd=" + std::to_string(kExitFd), "--netns-type=path"};
    // slirp4netns 1.2's --enable-sandbox (own mount namespace, pivot_root, capabilities
    // dropped) needs it to be root; as a plain user it fails ("setegid(0)") and has nothing to
    // drop anyway.
    if (helper_uid == 0) argv.push_back("--enable-sandbox");
    SpawnOptions spawn;
    spawn.inherited_fds = {{ready_write.get(), kReadyFd},
                           {exit_read.get(), kExitFd},
                           {netns.get(), kNetworkNamespaceFd}};
    if (join_userns) {
      argv.push_back("--userns-path=/proc/self/fd/" + std::to_string(kUserNamespaceFd));
      spawn.inherited_fds.emplace_back(userns.get(), kUserNamespaceFd);
    }
    argv.insert(argv.end(), {"/proc/self/fd/" + std::to_string(kNetworkNamespaceFd), "tap0"});
    if (as_other_user) {
      spawn.uid = options.uid;
      spawn.gid = gid;
    }
    const std::string log_path = options.log_path.empty() ? "/dev/null" : options.log_path;
    const pid_t pid = spawner.spawn(argv, log_path, spawn);
    ready_write.reset();
    exit_read.reset();
    wait_until_ready(pid, ready_read.get(), options);
    EgressNetwork network(pid, helper_uid, exit_write.release(), std::move(rules));
    change_route_rules(netns.get(), owner_userns, while_configuring, RuleChange::remove);
    return network;
  } catch (...) {
    std::throw_with_nested(std::runtime_error(
        "Cannot give sandbox process " + std::to_string(sandbox_pid) +
        " outbound network ([sandbox] network = egress)"));
  }
}

EgressNetwork::EgressNetwork(pid_t helper_pid, uid_t helper_uid, int exit_fd,
                             std::vector<RouteRule> rules)
    : helper_pid_(helper_pid),
      helper_uid_(helper_uid),
      exit_fd_(exit_fd),
      rules_(std::move(rules)) {}

EgressNetwork::EgressNetwork(EgressNetwork&& other) noexcept
    : helper_pid_(std::exchange(other.helper_pid_, -1)),
      helper_uid_(other.helper_uid_),
      exit_fd_(std::exchange(other.exit_fd_, -1)),
      rules_(std::move(other.rules_)) {}

EgressNetwork& EgressNetwork::operator=(EgressNetwork&& other) noexcept {
  if (this != &other) {
    stop();
    helper_pid_ = std::exchange(other.helper_pid_, -1);
    helper_uid_ = other.helper_uid_;
    exit_fd_ = std::exchange(other.exit_fd_, -1);
    rules_ = std::move(other.rules_);
  }
  return *this;
}

EgressNetwork::~EgressNetwork() { stop(); }

void EgressNetwork::stop() noexcept {
  if (helper_pid_ > 0) kill_and_reap(helper_pid_);
  if (exit_fd_ >= 0) ::close(exit_fd_);
  helper_pid_ = -1;
  exit_fd_ = -1;
}

std::string EgressNetwork::resolv_conf() {
  return std::string("nameserver ") + kEgressDnsAddress + "\n";
}

}  // namespace kg::sandbox
