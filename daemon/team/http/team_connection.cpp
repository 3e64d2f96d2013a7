#include "team_connection.hpp"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/NetException.h>
#include <sys/socket.h>

#include <string>

namespace kg::team {
namespace {

std::string too_many_connections(std::uint32_t limit) {
  const std::string body =
      R"({"error":"too_many_connections","error_description":"Your address has )" +
      std::to_string(limit) +
      R"( connections open to this server already ([team] max_connections_per_address); close some and try again."})";
  return "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
         "Connection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace

bool TeamConnectionFilter::accept(const Poco::Net::StreamSocket& socket) {
  std::string address;
  try {
    address = socket.peerAddress().host().toString();
  } catch (...) {
    return false;  // gone already
  }
  if (tracker_.admit(socket, address)) return true;
  if (!tls_) {
    // A fresh socket's send buffer takes this whole: never blocks the accept thread.
    const std::string answer = too_many_connections(tracker_.limits().per_address);
    const int fd = socket.impl()->sockfd();
    if (::send(fd, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL) > 0) {
      ::shutdown(fd, SHUT_WR);
      tracker_.linger(socket);
    }
  }
  return false;
}

void TeamConnection::run() {
  const Poco::Net::StreamSocket& connection = socket();
  tracker_.taken_up(connection);
  try {
    Poco::Net::HTTPServerSession session(connection, params_);
    bool first = true;
    while (session.hasMoreRequests()) {
      // The first request's headers are due from the accept on (ConnectionTracker::admit).
      if (!first) tracker_.reading_headers(connection);
      first = false;
      Poco::Net::HTTPServerResponseImpl response(session);
      try {
        Poco::Net::HTTPServerRequestImpl request(response, session, params_.get());
        response.setDate(Poco::Timestamp());
        response.setVersion(request.getVersion());
        response.setKeepAlive(params_->getKeepAlive() && request.getKeepAlive() &&
                              session.canKeepAlive());
        const bool has_body = request.getChunkedTransferEncoding() ||
                              (request.hasContentLength() && request.getContentLength64() > 0);
        if (has_body) {
          tracker_.reading_body(connection);
        } else {
          tracker_.handling(connection);
        }
        if (request.getExpectContinue()) response.sendContinue();
        handler_.handle(request, response, connection);
        session.setKeepAlive(params_->getKeepAlive() && response.getKeepAlive() &&
                             session.canKeepAlive());
        tracker_.awaiting_next_request(connection);
      } catch (const Poco::Net::NoMessageException&) {
        break;  // the client closed a kept-alive connection
      } catch (const Poco::Net::MessageException&) {
        // Not HTTP: say so once and close.
        if (!response.sent()) {
          response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_BAD_REQUEST);
          response.setKeepAlive(false);
          response.setContentLength(0);
          response.send();
        }
        break;
      }
    }
  } catch (...) {
    // The client went away, or the tracker shut the connection down at a deadline.
  }
  tracker_.release(connection);
}

}  // namespace kg::team
