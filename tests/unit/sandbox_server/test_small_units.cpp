// The listen address parser.
#include <doctest/doctest.h>

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

TEST_CASE("parse_listen_address says what is wrong") {
  CHECK_THROWS_WITH_AS(parse_listen_address("http://x"),
                       "Invalid listen address \"http://x\": unknown kind (use unix:/path/to/sock "
                       "or tcp:HOST:PORT)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_listen_address("tcp:host:99999"),
                       "Invalid listen address \"tcp:host:99999\": the port must be a number from "
                       "0 to 65535 (use unix:/path/to/sock or tcp:HOST:PORT)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_listen_address("unix:"),
                       "Invalid listen address \"unix:\": the socket path is empty (use "
                       "unix:/path/to/sock or tcp:HOST:PORT)",
                       std::invalid_argument);
}
