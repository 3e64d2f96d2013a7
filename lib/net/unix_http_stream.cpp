#include "unix_http_stream.hpp"

#include <istream>

#include "unix_http_exchange.hpp"

namespace kg::net {

HttpResponse UnixHttpStream::request(std::string_view method, std::string_view target,
                                     std::string_view body, const HttpRequestOptions& options,
                                     const StreamLineHandler& on_line) const {
  HttpRequestOptions streamed = options;
  streamed.headers.emplace_back("Accept", "application/x-ndjson");
  streamed.stream_lines = &on_line;
  return exchange_over_unix_socket(
      socket_path_, method, target, body, streamed, [&](std::istream& in, HttpResponse& response) {
        read_body_or_lines(in, response, streamed, socket_path_);
      });
}

}  // namespace kg::net
