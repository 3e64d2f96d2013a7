// Reading an HTTP server request's body with a size cap, for the daemon API (Unix socket) and
// team mode's HTTP server: a declared Content-Length over the cap is refused before the first
// byte is read, a chunked body as soon as it passes the cap. Handler threads.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace Poco::Net {
class HTTPServerRequest;
}

namespace kg::net {

// The client declared a Content-Length and the stream ended before that many bytes came (it hung
// up, or the server's read deadline passed): a truncated body must never be read as the request.
class IncompleteBodyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The body, at most `limit` bytes. Past that, calls too_large(what) with what is too large ("The
// request body of N bytes", or "The request body"), which must throw the caller's error. A body
// shorter than its declared Content-Length throws IncompleteBodyError.
std::string read_capped_body(Poco::Net::HTTPServerRequest& request, std::uint64_t limit,
                             const std::function<void(const std::string& what)>& too_large);

}  // namespace kg::net
