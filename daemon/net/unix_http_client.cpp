#include "unix_http_client.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <istream>
#include <ostream>

namespace kg::net {
namespace {

std::string read_body(std::istream& in, std::uint64_t max_bytes, const std::string& where) {
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

}  // namespace

HttpResponse UnixHttpClient::request(std::string_view method, std::string_view target,
                                     std::string_view body,
                                     const HttpRequestOptions& options) const {
  const Poco::Timespan timeout(
      std::chrono::duration_cast<std::chrono::microseconds>(options.timeout).count());
  Poco::Net::StreamSocket socket;
  try {
    socket.connect(
        Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, socket_path_), timeout);
  } catch (const Poco::Exception& e) {
    throw HttpTransportError("Cannot connect to " + socket_path_ + ": " + e.displayText(), true);
  }
  // The session wraps an already connected socket, so its own timeout never reaches the socket:
  // set it here, or a silent server would hold the caller until it closes the connection.
  socket.setReceiveTimeout(timeout);
  socket.setSendTimeout(timeout);
  struct Attachment {
    RequestCanceller* canceller;
    ~Attachment() {
      if (canceller) canceller->detach();
    }
  } attachment{options.canceller};
  if (options.canceller && !options.canceller->attach(socket.impl()->sockfd())) {
    attachment.canceller = nullptr;
    throw HttpTransportError("Request " + std::string(method) + " " + std::string(target) +
                                 " was cancelled",
                             false);
  }
  try {
    Poco::Net::HTTPClientSession session(socket);
    session.setTimeout(timeout);
    Poco::Net::HTTPRequest request(std::string(method), std::string(target),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost("localhost");
    request.setKeepAlive(false);
    for (const auto& [name, value] : options.headers) request.set(name, value);
    if (!body.empty() || method == "POST" || method == "PUT") {
      request.setContentType(options.content_type);
      request.setContentLength(static_cast<std::streamsize>(body.size()));
    }
    std::ostream& out = session.sendRequest(request);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    Poco::Net::HTTPResponse response;
    std::istream& in = session.receiveResponse(response);
    HttpResponse result;
    result.status = static_cast<int>(response.getStatus());
    result.content_type = response.getContentType();
    for (const auto& [name, value] : response) result.headers.emplace_back(name, value);
    result.body = read_body(in, options.max_response_bytes, socket_path_);
    return result;
  } catch (const HttpTransportError&) {
    throw;
  } catch (const Poco::TimeoutException& e) {
    throw HttpTransportError("No answer from " + socket_path_ + " within " +
                                 std::to_string(options.timeout.count()) + " ms",
                             false);
  } catch (const Poco::Exception& e) {
    if (options.canceller && options.canceller->cancelled()) {
      throw HttpTransportError("Request " + std::string(method) + " " + std::string(target) +
                                   " was cancelled",
                               false);
    }
    throw HttpTransportError("Request " + std::string(method) + " " + std::string(target) +
                                 " to " + socket_path_ + " failed: " + e.displayText(),
                             false);
  }
}

}  // namespace kg::net
