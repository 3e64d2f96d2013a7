// Per-user limits on tool calls over HTTP ([team] calls_per_minute, max_queued_per_user): a call
// is admitted when the user has started fewer than calls_per_minute in the last minute and has
// fewer than max_queued calls waiting or running. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kg::team {

class UserCallLimits {
 public:
  using Clock = std::chrono::steady_clock;

  UserCallLimits(std::uint32_t calls_per_minute, std::uint32_t max_in_flight)
      : calls_per_minute_(calls_per_minute), max_in_flight_(max_in_flight) {}

  struct Refusal {
    std::string message;
    std::uint32_t retry_after_s = 1;
  };

  // Admits one call for `user` (counted in flight until finished()), or says why not.
  std::optional<Refusal> admit(const std::string& user, Clock::time_point now = Clock::now());
  void finished(const std::string& user);

 private:
  struct Usage {
    std::deque<Clock::time_point> started;  // within the last minute
    std::uint32_t in_flight = 0;
  };

  std::uint32_t calls_per_minute_;
  std::uint32_t max_in_flight_;
  std::mutex mutex_;
  std::map<std::string, Usage> users_;
};

}  // namespace kg::team
