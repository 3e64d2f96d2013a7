#include "egress_tunnel_check.hpp"

#include <Poco/Exception.h>

#include <stdexcept>

#include "tls_client_hello.hpp"

namespace kg::sandbox {
namespace {

// Why `server_name` may not be asked for in a tunnel to `host`, or "" when it may.
std::string server_name_problem(const std::optional<std::string>& server_name,
                                const net::Host& host, int port,
                                const EgressAllowlist& allowlist) {
  if (!server_name) {
    return host.name() ? "its TLS ClientHello names no server; a tunnel to " + host.text() +
                             " must ask for " + host.text()
                       : "";
  }
  std::optional<net::Host> parsed;
  try {
    parsed.emplace(net::HostName::parse(*server_name));
  } catch (const net::InvalidHost& e) {
    return std::string("its TLS server name is not a host name (") + e.what() + ")";
  }
  const net::Host& asked = *parsed;
  if (host.name()) {
    return asked == host ? "" : "the TLS server name " + asked.text() +
                                    " inside the tunnel is not " + host.text();
  }
  if (const auto why = allowlist.refuse(asked, port)) {
    return "the TLS server name " + asked.text() + " inside the tunnel to " + host.text() +
           " is refused: " + *why;
  }
  return "";
}

}  // namespace

int ReceiveDeadline::receive(Poco::Net::StreamSocket& socket, char* buffer, int size) const {
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
      end_ - std::chrono::steady_clock::now());
  if (left.count() <= 0) throw Poco::TimeoutException("deadline passed");
  socket.setReceiveTimeout(Poco::Timespan(left.count()));
  return socket.receiveBytes(buffer, size);
}

std::string ReceiveDeadline::within_text() const {
  const auto ms = within_.count();
  return "within " + (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms");
}

std::string check_tunnel_hello(Poco::Net::StreamSocket& client, std::string first,
                               const net::Host& host, int port, const EgressAllowlist& allowlist,
                               const ReceiveDeadline& deadline) {
  const bool to_name = host.name() != nullptr;
  char buffer[4096];
  // False when the client closed; EgressRefusal when it stopped inside a ClientHello.
  const auto read_more = [&](bool inside_hello) {
    const int got = deadline.receive(client, buffer, sizeof buffer);
    if (got > 0) {
      first.append(buffer, static_cast<std::size_t>(got));
      return true;
    }
    if (inside_hello || to_name) {
      throw EgressRefusal{"the tunnel closed before a complete TLS ClientHello"};
    }
    return false;
  };
  try {
    while (first.size() < 5) {
      if (!read_more(!first.empty() && starts_tls_handshake(first))) return first;
    }
    if (!starts_tls_handshake(first)) {
      if (!to_name) return first;
      throw EgressRefusal{"the tunnel does not start with a TLS ClientHello, which a tunnel to a "
                          "name must (to show the server name it asks for)"};
    }
    const std::size_t size = tls_record_size(first);
    if (size > kMaxTlsRecordSize) {
      throw EgressRefusal{"its TLS ClientHello could not be read (TLS record too large)"};
    }
    while (first.size() < size) read_more(true);
    std::optional<std::string> server_name;
    try {
      server_name = tls_server_name(std::string_view(first).substr(0, size));
    } catch (const std::invalid_argument& e) {
      throw EgressRefusal{std::string("its TLS ClientHello could not be read (") + e.what() + ")"};
    }
    if (const auto problem = server_name_problem(server_name, host, port, allowlist);
        !problem.empty()) {
      throw EgressRefusal{problem};
    }
  } catch (const Poco::TimeoutException&) {
    // A tunnel to an address may be one where the server speaks first; to a name it may not.
    if (to_name || starts_tls_handshake(first)) {
      throw EgressRefusal{"no complete TLS ClientHello " + deadline.within_text()};
    }
  }
  return first;
}

}  // namespace kg::sandbox
