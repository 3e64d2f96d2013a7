// Raw HTTP/1.1 over TCP from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...), so a
// test can be several client addresses at once against a daemon on 127.0.0.1: for the limits
// team mode keeps per client address (test_team_limits.cpp).
#pragma once

#include <chrono>
#include <string>

namespace kg::test {

// A connected socket from source_ip to 127.0.0.1:port; -1 when the connection failed.
int connect_from(const std::string& source_ip, int port);

struct RawAnswer {
  int status = 0;        // 0: no status line came
  std::string text;      // all that was read
  bool closed = false;   // the server closed (or reset) the connection
  std::string header(const std::string& lowercase_name) const;
  std::string body() const;
};

// Reads what the server sends until it closes or `timeout` passes.
RawAnswer read_answer(int fd, std::chrono::milliseconds timeout);

// One request on a fresh connection (the request should say Connection: close); closes it.
RawAnswer exchange_from(const std::string& source_ip, int port, const std::string& request,
                        std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A complete request text: method, path, Host 127.0.0.1:port, Connection: close, the extra
// header lines ("Name: value\r\n" each) and the body with its Content-Length.
std::string request_text(int port, const std::string& method, const std::string& path,
                         const std::string& extra_headers = "", const std::string& body = "");

}  // namespace kg::test
