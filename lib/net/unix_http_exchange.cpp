#include "unix_http_exchange.hpp"

#include "unix_http_stream.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/SocketStream.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <sstream>

namespace kg::net {
namespace {

// Detaches the canceller from the socket however the exchange ends.
class CancellerAttachment {
 public:
  CancellerAttachment(RequestCanceller* canceller, int socket_fd)
      : canceller_(canceller != nullptr && canceller->attach(socket_fd) ? canceller : nullptr),
        refused_(canceller != nullptr && canceller_ == nullptr) {}
  ~CancellerAttachment() {
    if (canceller_ != nullptr) canceller_->detach();
  }
  CancellerAttachment(const CancellerAttachment&) = delete;
  CancellerAttachment& operator=(const CancellerAttachment&) = delete;

  // True when the canceller had already been cancelled before the request started.
  bool refused() const noexcept { return refused_; }

 private:
  RequestCanceller* canceller_;
  bool refused_;
};

HttpTransportError cancelled_error(std::string_view method, std::string_view target) {
  return HttpTransportError(
      "Request " + std::string(method) + " " + std::string(target) + " was cancelled", false);
}

// The answer a server sent before closing on a request it did not read to the end: status,
// headers and a Content-Length body, read straight from the socket (the HTTP session is broken
// by then). Reading stops at the declared length: the reset that follows would lose the rest.
std::string read_early_answer(Poco::Net::StreamSocket& socket, Poco::Net::HTTPResponse& response,
                              std::uint64_t max_bytes) {
  Poco::Net::SocketStream raw(socket);
  response.read(raw);
  const auto length = response.getContentLength64();
  if (length <= 0) return {};
  std::string body(static_cast<std::size_t>(std::min<std::uint64_t>(length, max_bytes)), '\0');
  raw.read(body.data(), static_cast<std::streamsize>(body.size()));
  body.resize(static_cast<std::size_t>(raw.gcount()));
  return body;
}

}  // namespace

std::string read_whole_body(std::istream& in, std::uint64_t max_bytes, const std::string& where) {
  std::string body;
  char buffer[64 * 1024];
  while (in) {
    in.read(buffer, sizeof buffer);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    if (body.size() + got > max_bytes) {
      throw HttpTransportError(
          "Response from " + where + " is larger than " + std::to_string(max_bytes) + " bytes",
          false);
    }
    body.append(buffer, got);
  }
  return body;
}

HttpResponse exchange_over_unix_socket(const std::string& socket_path, std::string_view method,
                                       std::string_view target, std::string_view body,
                                       const HttpRequestOptions& options,
                                       const BodyReader& read_body) {
  const SocketConnector connect = [&](const Poco::Timespan& timeout) {
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, socket_path),
                   timeout);
    return socket;
  };
  return exchange_over_socket(socket_path, "localhost", connect, method, target, body, options,
                              read_body);
}

HttpResponse exchange_over_socket(const std::string& where, const std::string& host,
                                  const SocketConnector& connect, std::string_view method,
                                  std::string_view target, std::string_view body,
                                  const HttpRequestOptions& options, const BodyReader& read_body) {
  const Poco::Timespan timeout(
      std::chrono::duration_cast<std::chrono::microseconds>(options.timeout).count());
  Poco::Net::StreamSocket socket;
  try {
    socket = connect(timeout);
  } catch (const Poco::Exception& e) {
    throw HttpTransportError("Cannot connect to " + where + ": " + e.displayText(), true);
  }
  // The session wraps an already connected socket, so its own timeout never reaches the socket:
  // set it here, or a silent server would hold the caller until it closes the connection.
  socket.setReceiveTimeout(timeout);
  socket.setSendTimeout(timeout);
  const CancellerAttachment attachment(options.canceller, socket.impl()->sockfd());
  if (attachment.refused()) throw cancelled_error(method, target);
  try {
    Poco::Net::HTTPClientSession session(socket);
    session.setTimeout(timeout);
    Poco::Net::HTTPRequest request(std::string(method), std::string(target),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(host);
    request.setKeepAlive(false);
    for (const auto& [name, value] : options.headers) request.set(name, value);
    if (!body.empty() || method == "POST" || method == "PUT") {
      request.setContentType(options.content_type);
      request.setContentLength(static_cast<std::streamsize>(body.size()));
    }
    // A server may answer and close before reading the whole body (a 413 for an oversized
    // upload): then the write fails, but its answer is waiting to be read, and it is the
    // response. Only when there is no answer either does the write's error count.
    std::optional<Poco::Exception> send_error;
    try {
      std::ostream& out = session.sendRequest(request);
      out.write(body.data(), static_cast<std::streamsize>(body.size()));
      out.flush();
      // The stream turns a failed write into badbit rather than an exception.
      if (!out) throw Poco::IOException("the connection closed while the request was sent");
    } catch (const Poco::Exception& e) {
      send_error.emplace(e);
    }
    Poco::Net::HTTPResponse response;
    std::optional<std::istringstream> early_body;  // an early answer, read past the session
    std::istream* received = nullptr;
    if (!send_error) {
      received = &session.receiveResponse(response);
    } else {
      try {
        early_body.emplace(read_early_answer(socket, response, options.max_response_bytes));
        received = &*early_body;
      } catch (const Poco::Exception&) {
        send_error->rethrow();
      }
    }
    std::istream& in = *received;
    HttpResponse result;
    result.status = static_cast<int>(response.getStatus());
    result.content_type = response.getContentType();
    for (const auto& [name, value] : response) result.headers.emplace_back(name, value);
    read_body(in, result);
    // A shut-down socket reads as a clean end of the body: only the canceller can tell.
    if (options.canceller != nullptr && options.canceller->cancelled()) {
      throw cancelled_error(method, target);
    }
    return result;
  } catch (const HttpTransportError&) {
    throw;
  } catch (const Poco::TimeoutException&) {
    throw HttpTransportError("No answer from " + where + " within " +
                                 std::to_string(options.timeout.count()) + " ms",
                             false);
  } catch (const Poco::Exception& e) {
    if (options.canceller != nullptr && options.canceller->cancelled()) {
      throw cancelled_error(method, target);
    }
    throw HttpTransportError("Request " + std::string(method) + " " + std::string(target) +
                                 " to " + where + " failed: " + e.displayText(),
                             false);
  }
}

bool is_ndjson_content_type(std::string_view content_type) noexcept {
  const std::string_view essence = content_type.substr(0, content_type.find(';'));
  return essence == "application/x-ndjson";
}

void read_body_or_lines(std::istream& in, HttpResponse& response,
                        const HttpRequestOptions& options, const std::string& where) {
  if (options.stream_lines == nullptr || response.status < 200 || response.status > 299 ||
      !is_ndjson_content_type(response.content_type)) {
    response.body = read_whole_body(in, options.max_response_bytes, where);
    return;
  }
  std::string line;
  char c = 0;
  while (in.get(c)) {
    if (c != '\n') {
      if (line.size() >= options.max_response_bytes) {
        throw HttpTransportError("A line of the streamed answer from " + where +
                                     " is longer than " +
                                     std::to_string(options.max_response_bytes) + " bytes",
                                 false);
      }
      line += c;
      continue;
    }
    if (!line.empty()) (*options.stream_lines)(line);
    line.clear();
  }
  if (!line.empty()) (*options.stream_lines)(line);  // a last line without '\n'
}

}  // namespace kg::net
