// HostName, IpLiteral, Host and HostPattern (lib/net/host_name.hpp, host_pattern.hpp): the
// one parse every destination host goes through, so what is checked is what is resolved.
#include <doctest/doctest.h>
#include <sys/socket.h>

#include <string>

#include "host_name.hpp"
#include "host_pattern.hpp"

namespace kg::net {
namespace {

using namespace std::string_literals;

std::string why_not(std::string_view text) {
  try {
    HostName::parse(text);
  } catch (const InvalidHost& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("HostName: canonical form is lowercase without a trailing dot") {
  CHECK(HostName::parse("Storage.GoogleAPIs.com.").text() == "storage.googleapis.com");
  CHECK(HostName::parse("localhost").text() == "localhost");
  CHECK(HostName::parse("xn--bcher-kva.example").text() == "xn--bcher-kva.example");
  CHECK(HostName::parse("a-b.c0.example").text() == "a-b.c0.example");
  CHECK(HostName::parse(std::string(63, 'a') + ".example").text().size() == 71);
}

TEST_CASE("HostName: a NUL byte or any other non-name byte is refused, shown escaped") {
  CHECK(why_not("attacker.example\0.googleapis.com"s) ==
        "\"attacker.example\\x00.googleapis.com\" is not a host name: it contains a NUL byte");
  CHECK(why_not("a.example\r\nX: y") ==
        "\"a.example\\x0d\\x0aX: y\" is not a host name: it contains a control character");
  CHECK(why_not("a b.example") == "\"a b.example\" is not a host name: it contains a space");
  CHECK(why_not("b\xc3\xbc" "cher.example") ==
        "\"b\\xc3\\xbccher.example\" is not a host name: it contains non-ASCII bytes (write an "
        "internationalized name in its xn-- form)");
  for (const char* text : {"a_b.example", "a%00.example", "user@a.example", "a.example:443",
                           "a/b", "[a.example]", "*.example", "a\\b"}) {
    CAPTURE(text);
    CHECK(why_not(text).find("only letters, digits, '-' and '.' are allowed") != std::string::npos);
  }
}

TEST_CASE("HostName: labels and length are bounded") {
  CHECK(why_not("").ends_with("it is empty"));
  CHECK(why_not(".").ends_with("it is empty"));
  CHECK(why_not("a..example").ends_with("it has an empty label"));
  CHECK(why_not(".a.example").ends_with("it has an empty label"));
  CHECK(why_not("a.example..").ends_with("it has an empty label"));
  CHECK(why_not(std::string(64, 'a') + ".example").ends_with("a label longer than 63 characters"));
  CHECK(why_not("-a.example").ends_with("starts or ends with '-'"));
  CHECK(why_not("a-.example").ends_with("starts or ends with '-'"));
  std::string long_name;
  while (long_name.size() < 254) long_name += "abcdefghi.";
  long_name.resize(254);
  CHECK(why_not(long_name).ends_with("it is longer than 253 characters"));
  long_name.resize(253);
  if (long_name.back() == '.') long_name.back() = 'a';
  CHECK_NOTHROW(HostName::parse(long_name));
}

TEST_CASE("HostName: IP addresses in any form a resolver reads are not names") {
  for (const char* text : {"127.0.0.1", "127.1", "2130706433", "0x7f.1", "0x7f000001", "017700000001",
                           "1.2.3.4.", "a.123"}) {
    CAPTURE(text);
    CHECK(why_not(text).ends_with("it is an IPv4 address in a form only resolvers read"));
  }
  CHECK(why_not("::1").find("':'") != std::string::npos);
}

TEST_CASE("HostName: below a suffix means a whole label below it") {
  const auto suffix = HostName::parse("googleapis.com");
  CHECK(HostName::parse("storage.googleapis.com").is_below(suffix));
  CHECK(HostName::parse("a.b.googleapis.com").is_below(suffix));
  CHECK_FALSE(HostName::parse("googleapis.com").is_below(suffix));
  CHECK_FALSE(HostName::parse("evilgoogleapis.com").is_below(suffix));
  CHECK_FALSE(HostName::parse("googleapis.com.evil.example").is_below(suffix));
}

TEST_CASE("IpLiteral: strict forms only, in canonical text") {
  CHECK(IpLiteral::parse("199.36.153.8").text() == "199.36.153.8");
  CHECK(IpLiteral::parse("199.36.153.8").family() == AF_INET);
  CHECK(IpLiteral::parse("[2001:DB8:0::1]").text() == "2001:db8::1");
  CHECK(IpLiteral::parse("2001:db8::1").family() == AF_INET6);
  CHECK(IpLiteral::parse("::ffff:127.0.0.1").text() == "::ffff:127.0.0.1");
  for (const char* text : {"127.1", "0x7f.0.0.1", "010.0.0.1", "[127.0.0.1]", "fe80::1%eth0",
                           "[::1", "1.2.3.4.5", "a.example", ""}) {
    CAPTURE(text);
    CHECK_THROWS_AS(IpLiteral::parse(text), InvalidHost);
  }
  CHECK_THROWS_AS(IpLiteral::parse("::1\0.example"s), InvalidHost);
}

TEST_CASE("Host: an address or a name, never anything else") {
  CHECK(Host::parse("[::1]").ip() != nullptr);
  CHECK(Host::parse("[::1]").authority_text() == "[::1]");
  CHECK(Host::parse("::1").text() == "::1");
  CHECK(Host::parse("10.0.0.1").ip() != nullptr);
  CHECK(Host::parse("10.0.0.1").authority_text() == "10.0.0.1");
  CHECK(Host::parse("A.Example.").name()->text() == "a.example");
  CHECK(Host::parse("A.Example.").authority_text() == "a.example");
  CHECK_THROWS_WITH_AS(Host::parse("127.1"),
                       "\"127.1\" is not a host name: it is an IPv4 address in a form only "
                       "resolvers read",
                       InvalidHost);
  CHECK_THROWS_WITH_AS(Host::parse("[a.example]:443"),
                       "\"[a.example]:443\" is not a host name: it contains '[' (only letters, "
                       "digits, '-' and '.' are allowed)",
                       InvalidHost);
  CHECK_THROWS_AS(Host::parse("a.example\0.googleapis.com"s), InvalidHost);
}

TEST_CASE("HostPattern: exact names, *.suffix and exact addresses") {
  const auto wildcard = HostPattern::parse("*.GoogleAPIs.com.");
  CHECK(wildcard.text() == "*.googleapis.com");
  CHECK(wildcard.matches(Host::parse("storage.googleapis.com")));
  CHECK_FALSE(wildcard.matches(Host::parse("googleapis.com")));
  CHECK_FALSE(wildcard.matches(Host::parse("evilgoogleapis.com")));
  const auto exact = HostPattern::parse("accounts.google.com");
  CHECK(exact.matches(Host::parse("Accounts.Google.com.")));
  CHECK_FALSE(exact.matches(Host::parse("x.accounts.google.com")));
  const auto address = HostPattern::parse("2001:db8:0::1");
  CHECK(address.text() == "2001:db8::1");
  CHECK(address.matches(Host::parse("[2001:db8::1]")));
  CHECK_FALSE(address.matches(Host::parse("2001:db8::2")));
  // A pattern never admits an address, even one whose text ends like it.
  CHECK_FALSE(HostPattern::parse("*.example").matches(Host::parse("10.0.0.1")));
}

TEST_CASE("HostPattern: malformed entries are refused with the reason") {
  CHECK_THROWS_WITH_AS(HostPattern::parse("*"),
                       "\"*\" is not a host pattern: '*' is only allowed as a leading \"*.\"",
                       InvalidHost);
  CHECK_THROWS_WITH_AS(HostPattern::parse("a.*.com"),
                       "\"a.*.com\" is not a host pattern: '*' is only allowed as a leading \"*.\"",
                       InvalidHost);
  CHECK_THROWS_WITH_AS(HostPattern::parse("*."),
                       "\"*.\" is not a \"*.suffix\" pattern: \"\" is not a host name: it is empty",
                       InvalidHost);
  CHECK_THROWS_WITH_AS(HostPattern::parse("*.8"),
                       "\"*.8\" is not a \"*.suffix\" pattern: \"8\" is not a host name: it is an "
                       "IPv4 address in a form only resolvers read",
                       InvalidHost);
  CHECK_THROWS_AS(HostPattern::parse("a_b.example"), InvalidHost);
  CHECK_THROWS_AS(HostPattern::parse("a.example\0.b"s), InvalidHost);
}

}  // namespace kg::net
