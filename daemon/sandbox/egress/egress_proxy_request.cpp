#include "egress_proxy_request.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/URI.h>

#include <charconv>
#include <sstream>

namespace kg::sandbox {
namespace {

// `host` as a net::Host; a text that is neither a name nor an address is refused as policy.
net::Host parse_host(std::string_view host, const std::string& what) {
  try {
    return net::Host::parse(host);
  } catch (const net::InvalidHost& e) {
    throw ProxyTargetRefused(what, e.what());
  }
}

int parse_port(std::string_view text, std::string_view target) {
  int port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || port < 1 ||
      port > 65535) {
    throw ProxyRequestError(400, "CONNECT " + net::printable(target) +
                                     ": the target must be host:port with a port from 1 to 65535");
  }
  return port;
}

// "host:port" or "[v6]:port".
ProxyRequest connect_target(const std::string& target) {
  const std::string shown = net::printable(target);
  std::string_view host, port;
  const std::string_view text(target);
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw ProxyRequestError(400, "CONNECT " + shown + ": expected [address]:port");
    }
    host = text.substr(0, close + 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) {
      throw ProxyRequestError(400, "CONNECT " + shown + ": expected host:port");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) throw ProxyRequestError(400, "CONNECT " + shown + ": no host");
  const int port_number = parse_port(port, target);
  return ProxyRequest{.tunnel = true, .host = parse_host(host, "CONNECT " + shown),
                      .port = port_number, .upstream_head = {}};
}

ProxyRequest absolute_target(Poco::Net::HTTPRequest& head) {
  Poco::URI uri;
  try {
    uri = Poco::URI(head.getURI());
  } catch (const Poco::Exception& e) {
    throw ProxyRequestError(400, "Not a URI: " + net::printable(head.getURI()) + " (" +
                                     e.displayText() + ")");
  }
  if (uri.getScheme() != "http") {
    throw ProxyRequestError(400, "Only http:// URIs are proxied as requests (got \"" +
                                     net::printable(uri.getScheme()) + "\"); use CONNECT for HTTPS");
  }
  if (uri.getHost().empty()) {
    throw ProxyRequestError(400, "No host in " + net::printable(head.getURI()));
  }
  ProxyRequest request{.tunnel = false,
                       .host = parse_host(uri.getHost(), "http://" + net::printable(uri.getHost()) +
                                                             ":" + std::to_string(uri.getPort())),
                       .port = uri.getPort(),
                       .upstream_head = {}};
  head.setURI(uri.getPathAndQuery().empty() ? "/" : uri.getPathAndQuery());
  head.erase("Proxy-Authorization");
  head.erase("Proxy-Connection");
  // The validated host, so the Host header names exactly what was checked and resolved.
  head.setHost(request.host.text(), uri.getPort());
  head.set("Connection", "close");
  std::ostringstream out;
  head.write(out);
  request.upstream_head = out.str();
  return request;
}

void read_request_head(std::string_view text, Poco::Net::HTTPRequest& head) {
  try {
    std::istringstream in{std::string(text)};
    head.read(in);
  } catch (const Poco::Exception& e) {
    throw ProxyRequestError(400, "Not an HTTP request: " + e.displayText());
  }
}

}  // namespace

std::string proxy_authorization(std::string_view text) {
  Poco::Net::HTTPRequest head;
  read_request_head(text, head);
  return head.get("Proxy-Authorization", "");
}

ProxyRequest parse_proxy_request(std::string_view text) {
  Poco::Net::HTTPRequest head;
  read_request_head(text, head);
  if (head.getMethod() == Poco::Net::HTTPRequest::HTTP_CONNECT) return connect_target(head.getURI());
  const std::string& uri = head.getURI();
  if (uri.starts_with("/")) {
    throw ProxyRequestError(400, "This is the egress proxy: send requests with an absolute URI "
                                 "(http://host/path) or CONNECT host:port");
  }
  if (uri.find("://") == std::string::npos) {
    throw ProxyRequestError(405, net::printable(head.getMethod()) + " " + net::printable(uri) +
                                     " is not a proxy request");
  }
  return absolute_target(head);
}

}  // namespace kg::sandbox
