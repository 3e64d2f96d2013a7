#include "unix_http_stream.hpp"

#include <istream>

#include "unix_http_exchange.hpp"

namespace kg::net {
namespace {

// Reads lines from a streamed body; a line longer than max_bytes is an error, not a silent cut.
void read_lines(std::istream& in, std::uint64_t max_bytes, const StreamLineHandler& on_line,
                const std::string& where) {
  std::string line;
  char c = 0;
  while (in.get(c)) {
    if (c != '\n') {
      if (line.size() >= max_bytes) {
        throw HttpTransportError("A line of the streamed answer from " + where +
                                     " is longer than " + std::to_string(max_bytes) + " bytes",
                                 false);
      }
      line += c;
      continue;
    }
    if (!line.empty()) on_line(line);
    line.clear();
  }
  if (!line.empty()) on_line(line);  // a last line without '\n'
}

}  // namespace

bool is_ndjson_content_type(std::string_view content_type) noexcept {
  const std::string_view essence = content_type.substr(0, content_type.find(';'));
  return essence == "application/x-ndjson";
}

HttpResponse UnixHttpStream::request(std::string_view method, std::string_view target,
                                     std::string_view body, const HttpRequestOptions& options,
                                     const StreamLineHandler& on_line) const {
  HttpRequestOptions streamed = options;
  streamed.headers.emplace_back("Accept", "application/x-ndjson");
  return exchange_over_unix_socket(
      socket_path_, method, target, body, streamed, [&](std::istream& in, HttpResponse& response) {
        if (response.status >= 200 && response.status <= 299 &&
            is_ndjson_content_type(response.content_type)) {
          read_lines(in, options.max_response_bytes, on_line, socket_path_);
        } else {
          response.body = read_whole_body(in, options.max_response_bytes, socket_path_);
        }
      });
}

}  // namespace kg::net
