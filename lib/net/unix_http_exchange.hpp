// One HTTP/1.1 request over one fresh connection, shared by UnixHttpClient (whole bodies),
// UnixHttpStream (NDJSON lines) and TcpHttpClient: connect with the caller's timeout, attach the
// optional canceller, send, receive the status and headers, and let `read_body` consume the body.
// Internal to lib/net.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include "unix_http_client.hpp"

namespace kg::net {

// Reads the body of `response` (status and headers already filled in) from `in`.
using BodyReader = std::function<void(std::istream& in, HttpResponse& response)>;

// Throws HttpTransportError (connect_failed() when nobody listens; "was cancelled" when the
// canceller stopped it); exceptions thrown by read_body that are not Poco's propagate as they are.
HttpResponse exchange_over_unix_socket(const std::string& socket_path, std::string_view method,
                                       std::string_view target, std::string_view body,
                                       const HttpRequestOptions& options,
                                       const BodyReader& read_body);

// Opens the connection a request goes over, within the timeout; throws Poco::Exception.
using SocketConnector = std::function<Poco::Net::StreamSocket(const Poco::Timespan& timeout)>;

// The same over whatever `connect` opens; `where` names the server in errors, `host` is the
// Host header.
HttpResponse exchange_over_socket(const std::string& where, const std::string& host,
                                  const SocketConnector& connect, std::string_view method,
                                  std::string_view target, std::string_view body,
                                  const HttpRequestOptions& options, const BodyReader& read_body);

// The whole body into response.body; over max_bytes is an HttpTransportError naming `where`.
std::string read_whole_body(std::istream& in, std::uint64_t max_bytes, const std::string& where);

// The body as options ask: line by line to options.stream_lines when it is set and the answer
// is a 2xx NDJSON stream (a line longer than max_response_bytes is an HttpTransportError, not a
// silent cut), else whole into response.body.
void read_body_or_lines(std::istream& in, HttpResponse& response,
                        const HttpRequestOptions& options, const std::string& where);

}  // namespace kg::net
