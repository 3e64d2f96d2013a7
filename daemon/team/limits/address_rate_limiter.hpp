// How often one client address may do something: a token bucket per address, `allowance` per
// `period`, refilled continuously. Team mode keeps two: requests without sign-in per minute
// (http/unauthenticated_gate.hpp, [team] unauthenticated_per_minute) and client registrations
// per hour (oauth/client_registration.cpp, [oauth] registrations_per_hour); docs/team-mode.md.
// Thread-safe; any HTTP thread calls take().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kg::team {

class AddressRateLimiter {
 public:
  using Clock = std::function<double()>;  // seconds, on any scale that only moves forward

  // allowance >= 1, period_s >= 1. Without a clock it uses std::chrono::steady_clock.
  AddressRateLimiter(std::uint32_t allowance, std::int64_t period_s, Clock clock = {});

  // Spends one of the address's allowance. nullopt when there was one; otherwise the whole
  // seconds (>= 1) until there is one again, for a Retry-After header. Refusals spend nothing.
  std::optional<std::int64_t> take(const std::string& address);

  std::uint32_t allowance() const noexcept { return allowance_; }

 private:
  struct Bucket {
    double tokens = 0;
    double updated = 0;
  };
  void forget_full_buckets(double now);  // under mutex_

  const std::uint32_t allowance_;
  const double refill_per_s_;
  Clock clock_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace kg::team
