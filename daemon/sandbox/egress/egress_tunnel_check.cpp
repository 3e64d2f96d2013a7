#include "egress_tunnel_check.hpp"

#include <Poco/Exception.h>

#include <stdexcept>
#include <vector>

#include "egress_tls.hpp"
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

namespace {

constexpr unsigned char kAlertAccessDenied = 49;
constexpr unsigned char kAlertNoApplicationProtocol = 120;

TunnelPlan refuse(std::string reason, unsigned char alert) {
  TunnelPlan plan;
  plan.refusal = EgressRefusal{std::move(reason), EgressRefusalKind::tls_hello};
  plan.alert = alert;
  return plan;
}

std::string joined(const std::vector<std::string>& protocols) {
  std::string text;
  for (const auto& protocol : protocols) {
    std::string shown;
    for (const char c : protocol) {
      shown += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) ? '?' : c;
    }
    text += (text.empty() ? "\"" : ", \"") + shown + "\"";
  }
  return text;
}

}  // namespace

TunnelPlan plan_tunnel(std::string_view first_bytes, const net::Host& host, bool terminating) {
  if (!terminating) return {};
  std::optional<ClientHelloFacts> facts;
  if (starts_tls_handshake(first_bytes)) {
    try {
      facts = read_client_hello(first_bytes.substr(0, tls_record_size(first_bytes)));
    } catch (const std::invalid_argument& e) {
      // check_tunnel_hello admits no unreadable hello in a tunnel to a name; to an address it
      // may be anything, but not something the proxy cannot tell from a Google API call.
      return refuse(std::string("its TLS ClientHello could not be read (") + e.what() + ")",
                    kAlertAccessDenied);
    }
  }
  if (host.name() == nullptr) {
    if (!facts || !facts->server_name) return {};
    std::optional<net::HostName> asked;
    try {
      asked.emplace(net::HostName::parse(*facts->server_name));
    } catch (const net::InvalidHost&) {
      return {};  // check_tunnel_hello refused it already
    }
    if (!is_google_api_host(asked->text())) return {};
    return refuse("the TLS server name " + asked->text() + " inside the tunnel to " +
                      host.text() + " is a Google API host, which the proxy serves only through "
                      "a tunnel by name (CONNECT " + asked->text() + ":443), so the API policy "
                      "and the audit see its requests",
                  kAlertAccessDenied);
  }
  if (!is_google_api_host(host.text())) return {};
  if (!facts) {
    return refuse("the tunnel to " + host.text() + " does not start with a TLS ClientHello",
                  kAlertAccessDenied);
  }
  TunnelPlan terminate;
  terminate.terminate = true;
  if (facts->alpn.empty()) return terminate;
  for (const auto& protocol : facts->alpn) {
    if (protocol == "h2" || protocol == "http/1.1") return terminate;
  }
  return refuse("its TLS ClientHello offers only the application protocols (ALPN) " +
                    joined(facts->alpn) + "; to " + host.text() + " the proxy serves HTTP/2 "
                    "(h2) and HTTP/1.1 (http/1.1) only, since it never relays a Google API host "
                    "unread (the API policy and the audit must see each request)",
                kAlertNoApplicationProtocol);
}

std::string tls_fatal_alert(unsigned char description) {
  // ContentType alert (21), legacy version TLS 1.2, length 2, level fatal (2), description.
  return std::string{'\x15', '\x03', '\x03', '\x00', '\x02', '\x02',
                     static_cast<char>(description)};
}

}  // namespace kg::sandbox
