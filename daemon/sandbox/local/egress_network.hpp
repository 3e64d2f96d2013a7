// Outbound network for one sandbox ([sandbox] network = egress): slirp4netns, a user-mode TCP/IP
// stack, gives the sandbox's network namespace a tap device (tap0, 10.0.2.100/24, gateway
// 10.0.2.2, DNS 10.0.2.3) and relays its connections from the daemon's network namespace,
// while policy-routing rules inside the namespace (egress_policy.hpp) refuse the host's
// loopback and addresses, private and link-local ranges and cloud metadata endpoints. Owned by the local
// sandbox it serves; destroying it stops slirp4netns. attach() may be called from any daemon
// thread; the object is then used by one thread at a time.
//
// Why slirp4netns and not pasta: slirp4netns relays every connection from the daemon's
// namespace through one fixed virtual network, so the one address to allow (DNS 10.0.2.3) is
// known in advance; --disable-host-loopback turns off its only built-in path to the host's
// loopback; --ready-fd/--exit-fd give a readiness and lifetime protocol; --enable-seccomp (and,
// when it runs as root, --enable-sandbox) confine the helper that parses the sandbox's packets;
// and it runs as root or as the sandbox's owner alike. Debian 12's pasta (2023-03) refuses to
// run as root (it switches to nobody, who cannot enter a root-owned sandbox's user namespace),
// has no readiness descriptor, and copies the host's address and routes into the namespace.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "egress_policy.hpp"
#include "process_spawner.hpp"

namespace kg::sandbox {

struct EgressNetworkOptions {
  // slirp4netns's own output (appended); read back into the error when it fails to start.
  std::string log_path;
  // The helper; a bare name is searched on PATH.
  std::string slirp4netns_program = "slirp4netns";
  // When the daemon runs as root and starts bubblewrap as another user: run slirp4netns as
  // that user too (it owns the sandbox's user namespace, so it can join it without root) where
  // that user can open /dev/net/tun; where it cannot (mode 0600), slirp4netns runs as root,
  // confined by --enable-sandbox (own mount namespace, capabilities dropped) besides
  // --enable-seccomp. helper_uid() says which. gid defaults to uid.
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
  // How long slirp4netns may take to bring the tap device up.
  std::chrono::milliseconds ready_timeout{5000};
};

class EgressNetwork {
 public:
  // Gives the network namespace of sandbox_pid (a process inside the sandbox's user and network
  // namespaces: bubblewrap's --info-fd "child-pid") outbound access: installs the refusal rules
  // first, then starts slirp4netns through spawner and waits until it has configured tap0.
  // slirp4netns runs in the calling thread's network namespace (the daemon's), and exits by
  // itself when the daemon dies (its --exit-fd closes). Throws std::runtime_error with nested
  // causes: slirp4netns missing (install it), /dev/net/tun unusable, namespaces not joinable,
  // a rule refused, the helper exiting or not ready in time (with its last log lines).
  static EgressNetwork attach(pid_t sandbox_pid, ProcessSpawner& spawner,
                              const EgressNetworkOptions& options);

  EgressNetwork(EgressNetwork&& other) noexcept;
  EgressNetwork& operator=(EgressNetwork&& other) noexcept;
  EgressNetwork(const EgressNetwork&) = delete;
  EgressNetwork& operator=(const EgressNetwork&) = delete;
  // Stops slirp4netns (SIGKILL, then reaps it).
  ~EgressNetwork();

  pid_t helper_pid() const noexcept { return helper_pid_; }
  uid_t helper_uid() const noexcept { return helper_uid_; }
  // The rules in force, for logs and `kode-gopher plugins`-style summaries.
  const std::vector<RouteRule>& rules() const noexcept { return rules_; }
  // The resolver the sandbox must use (its /etc/resolv.conf): "nameserver 10.0.2.3\n".
  static std::string resolv_conf();

 private:
  EgressNetwork(pid_t helper_pid, uid_t helper_uid, int exit_fd, std::vector<RouteRule> rules);
  void stop() noexcept;

  pid_t helper_pid_ = -1;
  uid_t helper_uid_ = 0;
  int exit_fd_ = -1;  // write end of slirp4netns's --exit-fd pipe
  std::vector<RouteRule> rules_;
};

}  // namespace kg::sandbox
