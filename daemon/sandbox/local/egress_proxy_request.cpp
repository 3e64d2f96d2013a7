#include "egress_proxy_request.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/URI.h>

#include <charconv>
#include <sstream>

#include "egress_allowlist.hpp"

namespace kg::sandbox {
namespace {

int parse_port(std::string_view text, std::string_view target) {
  int port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || port < 1 ||
      port > 65535) {
    throw ProxyRequestError(400, "CONNECT " + std::string(target) +
                                     ": the target must be host:port with a port from 1 to 65535");
  }
  return port;
}

// "host:port" or "[v6]:port".
ProxyRequest connect_target(const std::string& target) {
  ProxyRequest request;
  request.tunnel = true;
  std::string_view host, port;
  const std::string_view text(target);
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw ProxyRequestError(400, "CONNECT " + target + ": expected [address]:port");
    }
    host = text.substr(0, close + 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) {
      throw ProxyRequestError(400, "CONNECT " + target + ": expected host:port");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  request.host = normalize_host(host);
  if (request.host.empty()) throw ProxyRequestError(400, "CONNECT " + target + ": no host");
  request.port = parse_port(port, target);
  return request;
}

ProxyRequest absolute_target(Poco::Net::HTTPRequest& head) {
  Poco::URI uri;
  try {
    uri = Poco::URI(head.getURI());
  } catch (const Poco::Exception& e) {
    throw ProxyRequestError(400, "Not a URI: " + head.getURI() + " (" + e.displayText() + ")");
  }
  if (uri.getScheme() != "http") {
    throw ProxyRequestError(400, "Only http:// URIs are proxied as requests (got \"" +
                                     uri.getScheme() + "\"); use CONNECT for HTTPS");
  }
  ProxyRequest request;
  request.host = normalize_host(uri.getHost());
  request.port = uri.getPort();
  if (request.host.empty()) throw ProxyRequestError(400, "No host in " + head.getURI());
  head.setURI(uri.getPathAndQuery().empty() ? "/" : uri.getPathAndQuery());
  head.erase("Proxy-Authorization");
  head.erase("Proxy-Connection");
  head.setHost(uri.getHost(), uri.getPort());
  head.set("Connection", "close");
  std::ostringstream out;
  head.write(out);
  request.upstream_head = out.str();
  return request;
}

}  // namespace

ProxyRequest parse_proxy_request(std::string_view text) {
  Poco::Net::HTTPRequest head;
  try {
    std::istringstream in{std::string(text)};
    head.read(in);
  } catch (const Poco::Exception& e) {
    throw ProxyRequestError(400, "Not an HTTP request: " + e.displayText());
  }
  if (head.getMethod() == Poco::Net::HTTPRequest::HTTP_CONNECT) return connect_target(head.getURI());
  const std::string& uri = head.getURI();
  if (uri.starts_with("/")) {
    throw ProxyRequestError(400, "This is the egress proxy: send requests with an absolute URI "
                                 "(http://host/path) or CONNECT host:port");
  }
  if (uri.find("://") == std::string::npos) {
    throw ProxyRequestError(405, head.getMethod() + " " + uri + " is not a proxy request");
  }
  return absolute_target(head);
}

}  // namespace kg::sandbox
