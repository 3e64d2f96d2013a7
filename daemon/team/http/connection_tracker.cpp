#include "connection_tracker.hpp"

#include <sys/socket.h>

#include <cerrno>

#include <vector>

namespace kg::team {
namespace {

constexpr auto kReapEvery = std::chrono::milliseconds(200);
constexpr auto kReportEvery = std::chrono::seconds(60);
constexpr auto kLingerFor = std::chrono::seconds(1);
constexpr std::size_t kMaxLingering = 1024;

const void* key_of(const Poco::Net::StreamSocket& socket) { return socket.impl(); }

}  // namespace

ConnectionTracker::ConnectionTracker(ConnectionLimits limits, plugin::Logger& logger)
    : limits_(limits), logger_(logger), reaper_([this] { reap(); }) {}

ConnectionTracker::~ConnectionTracker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  reaper_.join();
}

bool ConnectionTracker::admit(const Poco::Net::StreamSocket& socket, const std::string& address) {
  std::lock_guard lock(mutex_);
  std::uint32_t& count = per_address_[address];
  if (count >= limits_.per_address) {
    if (count == 0) per_address_.erase(address);
    ++refused_;
    return false;
  }
  ++count;
  entries_[key_of(socket)] = Entry{socket, address, Clock::now() + limits_.header_timeout, false};
  return true;
}

void ConnectionTracker::taken_up(const Poco::Net::StreamSocket& socket) {
  std::lock_guard lock(mutex_);
  if (auto it = entries_.find(key_of(socket)); it != entries_.end()) it->second.taken_up = true;
}

void ConnectionTracker::set_deadline(const Poco::Net::StreamSocket& socket,
                                     std::optional<Clock::duration> within) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key_of(socket));
  if (it == entries_.end()) return;
  it->second.deadline = within ? std::optional(Clock::now() + *within) : std::nullopt;
}

void ConnectionTracker::awaiting_next_request(const Poco::Net::StreamSocket& socket) {
  set_deadline(socket, limits_.keep_alive);
}
void ConnectionTracker::reading_headers(const Poco::Net::StreamSocket& socket) {
  set_deadline(socket, limits_.header_timeout);
}
void ConnectionTracker::reading_body(const Poco::Net::StreamSocket& socket) {
  set_deadline(socket, limits_.body_timeout);
}
void ConnectionTracker::handling(const Poco::Net::StreamSocket& socket) {
  set_deadline(socket, std::nullopt);
}

void ConnectionTracker::release(const Poco::Net::StreamSocket& socket) {
  std::lock_guard lock(mutex_);
  if (auto it = entries_.find(key_of(socket)); it != entries_.end()) forget(it);
}

void ConnectionTracker::linger(const Poco::Net::StreamSocket& socket) {
  std::lock_guard lock(mutex_);
  if (lingering_.size() < kMaxLingering) lingering_.emplace_back(socket, Clock::now() + kLingerFor);
}

void ConnectionTracker::forget(std::map<const void*, Entry>::iterator it) {
  if (auto count = per_address_.find(it->second.address); count != per_address_.end()) {
    if (--count->second == 0) per_address_.erase(count);
  }
  entries_.erase(it);
}

void ConnectionTracker::close_all() {
  std::lock_guard lock(mutex_);
  for (auto& [key, entry] : entries_) {
    ::shutdown(entry.socket.impl()->sockfd(), SHUT_RDWR);
    entry.deadline.reset();
  }
}

void ConnectionTracker::reap() {
  auto next_report = Clock::now() + kReportEvery;
  std::vector<Poco::Net::StreamSocket> dropped;  // closed outside the lock
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kReapEvery);
    const auto now = Clock::now();
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      Entry& entry = it->second;
      if (entry.deadline && *entry.deadline <= now) {
        // The blocked read or write on the connection's thread returns at once and ends it.
        ::shutdown(entry.socket.impl()->sockfd(), SHUT_RDWR);
        entry.deadline.reset();
        ++reaped_;
        // Never taken up (Poco's queue dropped it, or no thread came in time): nobody else
        // will release it.
        if (!entry.taken_up) {
          dropped.push_back(entry.socket);
          forget(it);
        }
      }
      it = next;
    }
    std::erase_if(lingering_, [&](auto& entry) {
      char buffer[4096];
      ssize_t got;
      do {
        got = ::recv(entry.first.impl()->sockfd(), buffer, sizeof buffer, MSG_DONTWAIT);
      } while (got > 0);
      const bool open = got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
      if (open && entry.second > now) return false;
      dropped.push_back(entry.first);
      return true;
    });
    if (now >= next_report) {
      next_report = now + kReportEvery;
      if (refused_ > 0 || reaped_ > 0) {
        logger_.log(plugin::LogLevel::warn,
                    "HTTP: in the last minute, refused " + std::to_string(refused_) +
                        " connections over [team] max_connections_per_address and closed " +
                        std::to_string(reaped_) +
                        " that were too slow (header_timeout_s, keep_alive_s, body_timeout_s)");
      }
      refused_ = reaped_ = 0;
    }
    lock.unlock();
    dropped.clear();
    lock.lock();
  }
}

}  // namespace kg::team
