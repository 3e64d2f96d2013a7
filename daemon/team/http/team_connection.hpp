// The connections of team mode's HTTP server, in place of Poco's HTTPServerConnection so that
// each step of a request is under a deadline (connection_tracker.hpp):
// - TeamConnectionFilter runs on Poco's accept thread: a connection over its address's
//   [team] max_connections_per_address is answered 429 at once (plain HTTP; over TLS it is
//   closed, as no handshake was made) and never reaches a thread;
// - TeamConnection serves one connection's requests on a thread of the server's pool, telling
//   the tracker what it waits for, and hands each request to TeamRequestHandler.
#pragma once

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include "connection_tracker.hpp"
#include "team_request_handler.hpp"

namespace kg::team {

class TeamConnectionFilter final : public Poco::Net::TCPServerConnectionFilter {
 public:
  TeamConnectionFilter(ConnectionTracker& tracker, bool tls) : tracker_(tracker), tls_(tls) {}
  bool accept(const Poco::Net::StreamSocket& socket) override;

 private:
  ConnectionTracker& tracker_;
  const bool tls_;
};

class TeamConnection final : public Poco::Net::TCPServerConnection {
 public:
  TeamConnection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
                 TeamRequestHandler& handler, ConnectionTracker& tracker)
      : TCPServerConnection(socket), params_(std::move(params)), handler_(handler),
        tracker_(tracker) {}
  void run() override;

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  TeamRequestHandler& handler_;
  ConnectionTracker& tracker_;
};

class TeamConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  TeamConnectionFactory(Poco::Net::HTTPServerParams::Ptr params, TeamRequestHandler& handler,
                        ConnectionTracker& tracker)
      : params_(std::move(params)), handler_(handler), tracker_(tracker) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new TeamConnection(socket, params_, handler_, tracker_);
  }

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  TeamRequestHandler& handler_;
  ConnectionTracker& tracker_;
};

}  // namespace kg::team
