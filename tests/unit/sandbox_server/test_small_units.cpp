// The listen address parser.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include "listen_address.hpp"

using kg::sandbox::ListenAddress;
using kg::sandbox::parse_listen_address;

TEST_CASE("parse_listen_address reads unix and tcp addresses") {
  const ListenAddress unix_address = parse_listen_address("unix:/run/kg/sandbox.sock");
  CHECK(unix_address.kind == ListenAddress::Kind::unix_socket);
  CHECK(unix_address.path == "/run/kg/sandbox.sock");

  const ListenAddress tcp_address = parse_listen_address("tcp:0.0.0.0:8888");
  CHECK(tcp_address.kind == ListenAddress::Kind::tcp);
  CHECK(tcp_address.host == "0.0.0.0");
  CHECK(tcp_address.port == 8888);

  const ListenAddress ipv6 = parse_listen_address("tcp:[::1]:80");
  CHECK(ipv6.host == "::1");
  CHECK(ipv6.port == 80);
}

TEST_CASE("parse_listen_address takes an inherited descriptor") {
  const ListenAddress inherited = parse_listen_address("fd:5");
  CHECK(inherited.kind == ListenAddress::Kind::inherited_fd);
  CHECK(inherited.fd == 5);
  CHECK_THROWS_AS(parse_listen_address("fd:1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_listen_address("fd:x"), std::invalid_argument);
  // A descriptor that is not a listening socket is refused with a reason.
  const int not_a_socket = ::open("/dev/null", O_RDONLY);
  REQUIRE(not_a_socket >= 3);
  CHECK_THROWS_WITH(listen_on(parse_listen_address("fd:" + std::to_string(not_a_socket))),
                    doctest::Contains("not a listening socket"));
  ::close(not_a_socket);
}

TEST_CASE("parse_listen_address says what is wrong") {
  CHECK_THROWS_WITH_AS(parse_listen_address("http://x"),
                       "Invalid listen address \"http://x\": unknown kind (use unix:/path/to/sock, "
                       "tcp:HOST:PORT or fd:N)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_listen_address("tcp:host:99999"),
                       "Invalid listen address \"tcp:host:99999\": the port must be a number from "
                       "0 to 65535 (use unix:/path/to/sock, tcp:HOST:PORT or fd:N)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_listen_address("unix:"),
                       "Invalid listen address \"unix:\": the socket path is empty (use "
                       "unix:/path/to/sock, tcp:HOST:PORT or fd:N)",
                       std::invalid_argument);
}
