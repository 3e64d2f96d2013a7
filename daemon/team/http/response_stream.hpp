// How the MCP endpoint answers one request: a whole reply, or an SSE stream it writes event by
// event. team_http_server.cpp implements it over Poco's response; tests can implement it in
// memory. Used by one handler thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_exchange.hpp"

namespace kg::team {

class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual void send(const HttpReply& reply) = 0;
  // Starts a 200 text/event-stream response with these extra headers. False when the client
  // has gone.
  virtual bool begin_events(const std::vector<std::pair<std::string, std::string>>& headers) = 0;
  // One SSE `message` event carrying `data` (one line of JSON). False when the client has gone.
  virtual bool event(std::string_view data) = 0;
  // An SSE comment line, to keep proxies from timing the stream out. False when the client has
  // gone.
  virtual bool keepalive() = 0;
  // True once the client has closed its end (checked without blocking).
  virtual bool client_gone() = 0;
};

}  // namespace kg::team
