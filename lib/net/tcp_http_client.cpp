#include "tcp_http_client.hpp"

#include <Poco/Net/SocketAddress.h>

#include "unix_http_exchange.hpp"

namespace kg::net {

HttpResponse TcpHttpClient::request(std::string_view method, std::string_view target,
                                    std::string_view body,
                                    const HttpRequestOptions& options) const {
  HttpRequestOptions with_headers = options;
  with_headers.headers.insert(with_headers.headers.begin(), headers_.begin(), headers_.end());
  const SocketConnector connect = [&](const Poco::Timespan& timeout) {
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress(host_, port_), timeout);
    return socket;
  };
  const std::string where = describe();
  return exchange_over_socket(where, where, connect, method, target, body, with_headers,
                              [&](std::istream& in, HttpResponse& response) {
                                read_body_or_lines(in, response, with_headers, where);
                              });
}

}  // namespace kg::net
