#include "capped_request_body.hpp"

#include <Poco/Net/HTTPServerRequest.h>

namespace kg::net {

std::string read_capped_body(Poco::Net::HTTPServerRequest& request, std::uint64_t limit,
                             const std::function<void(const std::string& what)>& too_large) {
  if (request.hasContentLength() && request.getContentLength64() > static_cast<Poco::Int64>(limit)) {
    too_large("The request body of " + std::to_string(request.getContentLength64()) + " bytes");
  }
  std::string body;
  char buffer[64 * 1024];
  auto& in = request.stream();
  while (in) {
    in.read(buffer, sizeof buffer);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    if (body.size() + got > limit) too_large("The request body");
    body.append(buffer, got);
  }
  if (request.hasContentLength() &&
      body.size() < static_cast<std::uint64_t>(request.getContentLength64())) {
    throw IncompleteBodyError("The request body ended after " + std::to_string(body.size()) +
                              " of its " + std::to_string(request.getContentLength64()) +
                              " bytes (Content-Length); send the whole body");
  }
  return body;
}

}  // namespace kg::net
