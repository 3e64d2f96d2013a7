// Every open connection of team mode's HTTP server, with the deadline of what it is waiting
// for, and a reaper thread that shuts a connection down once its deadline passes: slow clients
// cannot hold the server's threads (docs/team-mode.md, "Slow and unknown clients").
//
// - accepted: counted against its address; the first request's headers are due within
//   header_timeout from the accept (the wait for a thread included);
// - between requests on a kept-alive connection: the next request is due within keep_alive;
// - a request's headers, once its first byte came: due within header_timeout;
// - its body: due within body_timeout from the end of the headers;
// - then it is the handler's (a tool call, an event stream): no deadline.
//
// admit() runs on the accept thread (TeamConnectionFilter); the phase calls on the connection's
// own thread; close_all() on the thread stopping the server. A connection is known by its
// socket, which the tracker holds a reference to until release(): the descriptor the reaper
// shuts down can never be another connection's.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host_services.hpp"

namespace kg::team {

struct ConnectionLimits {
  std::chrono::seconds header_timeout{10};  // [team] header_timeout_s
  std::chrono::seconds keep_alive{15};      // [team] keep_alive_s
  std::chrono::seconds body_timeout{30};    // [team] body_timeout_s
  std::uint32_t per_address = 64;           // [team] max_connections_per_address
};

class ConnectionTracker {
 public:
  using Clock = std::chrono::steady_clock;

  ConnectionTracker(ConnectionLimits limits, plugin::Logger& logger);
  ~ConnectionTracker();  // stops the reaper
  ConnectionTracker(const ConnectionTracker&) = delete;
  ConnectionTracker& operator=(const ConnectionTracker&) = delete;

  // A new connection from `address`: false when the address holds per_address already (the
  // connection is not tracked then, and the caller refuses it).
  bool admit(const Poco::Net::StreamSocket& socket, const std::string& address);
  // The connection's thread took it up (until then, a connection never taken up is the
  // reaper's to drop). The phase calls below do nothing for a connection not tracked.
  void taken_up(const Poco::Net::StreamSocket& socket);
  void awaiting_next_request(const Poco::Net::StreamSocket& socket);
  void reading_headers(const Poco::Net::StreamSocket& socket);
  void reading_body(const Poco::Net::StreamSocket& socket);
  void handling(const Poco::Net::StreamSocket& socket);  // no deadline
  // The connection is done; the caller closes its socket after this.
  void release(const Poco::Net::StreamSocket& socket);
  // A refused connection that was just sent its answer: the reaper reads and drops what the
  // client still sends for a second, then closes it, so the client reads the answer rather
  // than a reset (a "lingering close"). Closed at once when many are lingering already.
  void linger(const Poco::Net::StreamSocket& socket);
  // Shuts every connection down (the server is stopping); the reaper goes on until destroyed.
  void close_all();

  const ConnectionLimits& limits() const noexcept { return limits_; }

 private:
  struct Entry {
    Poco::Net::StreamSocket socket;  // keeps the descriptor open while tracked
    std::string address;
    std::optional<Clock::time_point> deadline;
    bool taken_up = false;
  };
  void set_deadline(const Poco::Net::StreamSocket& socket, std::optional<Clock::duration> within);
  void forget(std::map<const void*, Entry>::iterator it);  // under mutex_
  void reap();  // the reaper thread

  const ConnectionLimits limits_;
  plugin::Logger& logger_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<const void*, Entry> entries_;  // by the socket's SocketImpl
  std::map<std::string, std::uint32_t> per_address_;
  std::vector<std::pair<Poco::Net::StreamSocket, Clock::time_point>> lingering_;
  std::uint64_t refused_ = 0, reaped_ = 0;  // since the last log line
  std::thread reaper_;
};

}  // namespace kg::team
