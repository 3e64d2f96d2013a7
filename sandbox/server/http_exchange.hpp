// The pieces every route uses to read a request and answer it: the HttpError a route throws for
// an HTTP-level refusal, sending JSON answers (written by the codecs in lib/wire/sandbox_api),
// and bounded body reading.
//
// Called by the route functions on the thread serving the request.
#pragma once

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kg::sandbox {

// A refusal with its HTTP status; the message becomes {"detail": message}.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

// One request as a route sees it: the path part after the route's prefix is still
// percent-encoded; the query string comes without its '?'.
struct Exchange {
  Poco::Net::HTTPServerRequest& request;
  Poco::Net::HTTPServerResponse& response;
  std::string path_tail;
  std::string query;
};

void send_json(Poco::Net::HTTPServerResponse& response, int status, std::string_view json);
// {"detail": message}; closes the connection afterwards, since the body may be half read.
void send_json_error(Poco::Net::HTTPServerResponse& response, int status,
                     std::string_view message);

// Whether the request announces a body (Content-Length or chunked). Without either an HTTP/1.1
// request has none, but Poco would read its stream until the client closes the connection.
bool has_body(const Poco::Net::HTTPServerRequest& request);

// The whole body ("" when has_body() is false), refusing (HttpError 413) more than `max_bytes`; `what` names the body in the
// message ("The /execute body").
std::string read_body(Poco::Net::HTTPServerRequest& request, std::uint64_t max_bytes,
                      std::string_view what);

// Reads and drops up to 1 MiB of body a route left unread (tar padding, a trailing boundary) so
// the connection can be reused; when more remains, the connection is closed after the answer.
void discard_rest_of_body(Exchange& exchange);

}  // namespace kg::sandbox
