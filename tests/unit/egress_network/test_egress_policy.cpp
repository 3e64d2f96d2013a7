// The egress policy as data: which destinations a sandbox may reach, in which order.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <stdexcept>

#include "egress_policy.hpp"

namespace kg::sandbox {
namespace {

bool refuses(const std::vector<RouteRule>& rules, const std::string& prefix) {
  const auto wanted = IpPrefix::parse(prefix);
  return std::any_of(rules.begin(), rules.end(), [&](const RouteRule& rule) {
    return rule.action == RouteRule::Action::refuse && rule.destination == wanted;
  });
}

// IpPrefix itself is lib/net's (tests/unit/net/test_address_policy.cpp).

TEST_CASE("only the DNS port of slirp4netns's resolver is allowed, and before any refusal") {
  const auto rules = egress_route_rules({});
  REQUIRE(rules.size() >= 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(rules[i].action == RouteRule::Action::allow);
    CHECK(rules[i].destination == IpPrefix::parse("10.0.2.3/32"));
    CHECK(rules[i].port == 53);
  }
  CHECK(rules[0].ip_protocol == IPPROTO_UDP);
  CHECK(rules[1].ip_protocol == IPPROTO_TCP);
  CHECK(std::count_if(rules.begin(), rules.end(), [](const RouteRule& rule) {
          return rule.action == RouteRule::Action::allow;
        }) == 2);
}

TEST_CASE("the issue's ranges are all refused") {
  const auto rules = egress_route_rules({});
  for (const char* prefix : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                             "169.254.0.0/16", "fc00::/7", "fe80::/10"}) {
    CAPTURE(prefix);
    CHECK(refuses(rules, prefix));
  }
}

TEST_CASE("the host's own addresses are refused, except loopback, each once") {
  const auto rules = egress_route_rules({IpPrefix::parse("192.0.2.2/32"),
                                         IpPrefix::parse("127.0.0.1/32"),
                                         IpPrefix::parse("::1/128"),
                                         IpPrefix::parse("2001:db8::5/128"),
                                         IpPrefix::parse("168.63.129.16/32")});
  CHECK(refuses(rules, "192.0.2.2/32"));
  CHECK(refuses(rules, "2001:db8::5/128"));
  CHECK_FALSE(refuses(rules, "127.0.0.1/32"));
  CHECK_FALSE(refuses(rules, "::1/128"));
  const auto wireserver = IpPrefix::parse("168.63.129.16/32");
  CHECK(std::count_if(rules.begin(), rules.end(), [&](const RouteRule& rule) {
          return rule.destination == wireserver;
        }) == 1);
}

TEST_CASE("the host's interface addresses include its loopback") {
  // Every network namespace has lo; the egress test's own namespace has it too.
  const auto addresses = host_interface_addresses();
  CHECK(std::find(addresses.begin(), addresses.end(), IpPrefix::parse("127.0.0.1/32")) !=
        addresses.end());
}

}  // namespace
}  // namespace kg::sandbox
