#include "netns_route_rules.hpp"

#include <fcntl.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace {

// One RTM_NEWRULE (or RTM_DELRULE) request per rule, concatenated: the kernel answers each
// with an ack whose sequence number is the rule's index + 1.
class RuleBatch {
 public:
  explicit RuleBatch(RuleChange change) : change_(change) {}

  void add(const RouteRule& rule, std::uint32_t sequence) {
    const std::size_t start = bytes_.size();
    bytes_.resize(start + NLMSG_SPACE(sizeof(fib_rule_hdr)));
    auto* header = reinterpret_cast<nlmsghdr*>(bytes_.data() + start);
    const bool add = change_ == RuleChange::add;
    header->nlmsg_type = add ? RTM_NEWRULE : RTM_DELRULE;
    header->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
    header->nlmsg_seq = sequence;
    auto* body = reinterpret_cast<fib_rule_hdr*>(NLMSG_DATA(header));
    body->family = static_cast<std::uint8_t>(rule.destination.family);
    body->dst_len = static_cast<std::uint8_t>(rule.destination.length);
    const bool allow = rule.action == RouteRule::Action::allow;
    body->action = allow ? FR_ACT_TO_TBL : FR_ACT_PROHIBIT;
    body->table = allow ? RT_TABLE_MAIN : RT_TABLE_UNSPEC;
    const std::uint32_t priority = allow ? kAllowRulePriority : kRefuseRulePriority;
    attribute(FRA_PRIORITY, &priority, sizeof priority);
    attribute(FRA_DST, rule.destination.bytes.data(), rule.destination.family == AF_INET ? 4 : 16);
    if (rule.ip_protocol != 0) {
      const auto protocol = static_cast<std::uint8_t>(rule.ip_protocol);
      attribute(FRA_IP_PROTO, &protocol, sizeof protocol);
    }
    if (rule.port != 0) {
      const fib_rule_port_range ports{static_cast<std::uint16_t>(rule.port),
                                      static_cast<std::uint16_t>(rule.port)};
      attribute(FRA_DPORT_RANGE, &ports, sizeof ports);
    }
    reinterpret_cast<nlmsghdr*>(bytes_.data() + start)->nlmsg_len =
        static_cast<std::uint32_t>(bytes_.size() - start);
  }

  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  void attribute(unsigned short type, const void* data, std::size_t size) {
    const std::size_t start = bytes_.size();
    bytes_.resize(start + RTA_SPACE(size));
    auto* attr = reinterpret_cast<rtattr*>(bytes_.data() + start);
    attr->rta_type = type;
    attr->rta_len = static_cast<unsigned short>(RTA_LENGTH(size));
    std::memcpy(RTA_DATA(attr), data, size);
  }

  RuleChange change_;
  std::vector<std::uint8_t> bytes_;
};

// What the child reports when it stops early.
struct ChildReport {
  int step;
  int error_number;
  std::uint32_t sequence;  // the refused rule's index + 1, for step send_rules
};
enum Step : int { join_user_namespace = 1, join_network_namespace, open_netlink, send_rules };

// Runs in the forked child of a multithreaded daemon: async-signal-safe calls only.
[[noreturn]] void report(int fd, int step, int error_number, std::uint32_t sequence = 0) {
  const ChildReport failure{step, error_number, sequence};
  [[maybe_unused]] const auto ignored = ::write(fd, &failure, sizeof failure);
  ::_exit(1);
}

[[noreturn]] void install_in_child(int netns_fd, int userns_fd, const RuleBatch& batch,
                                   std::uint32_t count, int report_fd) {
  if (userns_fd >= 0 && ::setns(userns_fd, CLONE_NEWUSER) != 0) {
    report(report_fd, join_user_namespace, errno);
  }
  if (::setns(netns_fd, CLONE_NEWNET) != 0) report(report_fd, join_network_namespace, errno);
  const int netlink = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (netlink < 0) report(report_fd, open_netlink, errno);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  const auto& bytes = batch.bytes();
  if (::sendto(netlink, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof kernel) != static_cast<ssize_t>(bytes.size())) {
    report(report_fd, send_rules, errno);
  }
  alignas(nlmsghdr) char buffer[8192];
  std::uint32_t acknowledged = 0;
  while (acknowledged < count) {
    const ssize_t got = ::recv(netlink, buffer, sizeof buffer, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) report(report_fd, send_rules, got < 0 ? errno : EPIPE);
    int left = static_cast<int>(got);
    for (auto* header = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(header, left);
         header = NLMSG_NEXT(header, left)) {
      if (header->nlmsg_type != NLMSG_ERROR) continue;
      const auto* answer = reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(header));
      if (answer->error != 0) report(report_fd, send_rules, -answer->error, header->nlmsg_seq);
      ++acknowledged;
    }
  }
  ::_exit(0);
}

std::string describe(const ChildReport& failure, const std::vector<RouteRule>& rules,
                     RuleChange change) {
  const std::string reason = std::strerror(failure.error_number);
  switch (failure.step) {
    case join_user_namespace:
      return "Cannot join the user namespace that owns the sandbox's network (" + reason +
             "): the daemon must own the sandbox's user namespace or run as root";
    case join_network_namespace:
      return "Cannot join the sandbox's network namespace: " + reason;
    case open_netlink:
      return "Cannot open a netlink socket inside the sandbox's network namespace: " + reason;
    default:
      break;
  }
  if (failure.sequence >= 1 && failure.sequence <= rules.size()) {
    const auto& rule = rules[failure.sequence - 1];
    return std::string("The kernel refused to ") + (change == RuleChange::add ? "add" : "remove") +
           " the rule that " +
           (rule.action == RouteRule::Action::allow ? "allows " : "refuses ") +
           rule.destination.text + " (" + rule.reason + "): " + reason +
           (failure.error_number == EAFNOSUPPORT || failure.error_number == EOPNOTSUPP
                ? " (the kernel needs CONFIG_IP_MULTIPLE_TABLES and CONFIG_IPV6_MULTIPLE_TABLES)"
                : "");
  }
  return "Cannot send routing rules into the sandbox's network namespace: " + reason;
}

}  // namespace

void change_route_rules(int netns_fd, int owner_userns_fd, const std::vector<RouteRule>& rules,
                        RuleChange change) {
  RuleBatch batch(change);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    batch.add(rules[i], static_cast<std::uint32_t>(i + 1));
  }
  int report_pipe[2];
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("Cannot create a pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(report_pipe[0]);
    ::close(report_pipe[1]);
    throw std::runtime_error(std::string("Cannot fork to install routing rules: ") +
                             std::strerror(error));
  }
  if (pid == 0) {
    install_in_child(netns_fd, owner_userns_fd, batch, static_cast<std::uint32_t>(rules.size()),
                     report_pipe[1]);
  }
  ::close(report_pipe[1]);
  ChildReport failure{};
  ssize_t got;
  do {
    got = ::read(report_pipe[0], &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  ::close(report_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof failure)) {
    throw std::runtime_error(describe(failure, rules, change));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("The process installing routing rules died (wait status " +
                             std::to_string(status) + ")");
  }
}

}  // namespace kg::sandbox
