#include "unix_http_client.hpp"

#include "unix_http_exchange.hpp"

namespace kg::net {

HttpResponse UnixHttpClient::request(std::string_view method, std::string_view target,
                                     std::string_view body,
                                     const HttpRequestOptions& options) const {
  return exchange_over_unix_socket(
      socket_path_, method, target, body, options, [&](std::istream& in, HttpResponse& response) {
        response.body = read_whole_body(in, options.max_response_bytes, socket_path_);
      });
}

}  // namespace kg::net
