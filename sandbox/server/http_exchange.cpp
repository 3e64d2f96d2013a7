#include "http_exchange.hpp"

#include <istream>

#include "sandbox_api/error_answer.hpp"

namespace kg::sandbox {

void send_json(Poco::Net::HTTPServerResponse& response, int status, std::string_view json) {
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType("application/json");
  response.sendBuffer(json.data(), json.size());
}

void send_json_error(Poco::Net::HTTPServerResponse& response, int status,
                     std::string_view message) {
  response.setKeepAlive(false);
  send_json(response, status, wire::sandbox_api::encode_error_answer(message));
}

bool has_body(const Poco::Net::HTTPServerRequest& request) {
  return request.hasContentLength() || request.getChunkedTransferEncoding();
}

std::string read_body(Poco::Net::HTTPServerRequest& request, std::uint64_t max_bytes,
                      std::string_view what) {
  const auto too_large = [&] {
    return HttpError(413, std::string(what) + " is larger than the limit of " +
                              std::to_string(max_bytes) + " bytes: send less");
  };
  if (request.hasContentLength() &&
      static_cast<std::uint64_t>(request.getContentLength64()) > max_bytes) {
    throw too_large();
  }
  std::string body;
  if (!has_body(request)) return body;
  std::istream& in = request.stream();
  char buffer[64 * 1024];
  while (in) {
    in.read(buffer, sizeof buffer);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    if (body.size() + got > max_bytes) throw too_large();
    body.append(buffer, got);
  }
  return body;
}

void discard_rest_of_body(Exchange& exchange) {
  if (!has_body(exchange.request)) return;
  std::istream& in = exchange.request.stream();
  char buffer[64 * 1024];
  for (int chunk = 0; chunk < 16 && in; ++chunk) {
    in.read(buffer, sizeof buffer);
    if (in.gcount() == 0) return;
  }
  if (in && in.peek() != std::char_traits<char>::eof()) exchange.response.setKeepAlive(false);
}

}  // namespace kg::sandbox
