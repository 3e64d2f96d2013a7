#include "unix_http_client.hpp"

#include "unix_http_exchange.hpp"

namespace kg::net {

HttpResponse UnixHttpClient::request(std::string_view method, std::string_view target,
                                     std::string_view body,
                                     const HttpRequestOptions& options) const {
  return exchange_over_unix_socket(
      socket_path_, method, target, body, options, [&](std::istream& in, HttpResponse& response) {
        read_body_or_lines(in, response, options, socket_path_);
      });
}

}  // namespace kg::net
