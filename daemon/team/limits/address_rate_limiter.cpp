#include "address_rate_limiter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace kg::team {
namespace {

// Above this many addresses, those whose allowance is whole again are forgotten: they are no
// different from an address never seen.
constexpr std::size_t kForgetAbove = 4096;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

AddressRateLimiter::AddressRateLimiter(std::uint32_t allowance, std::int64_t period_s, Clock clock)
    : allowance_(std::max<std::uint32_t>(allowance, 1)),
      refill_per_s_(static_cast<double>(allowance_) / static_cast<double>(std::max<std::int64_t>(period_s, 1))),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {}

std::optional<std::int64_t> AddressRateLimiter::take(const std::string& address) {
  const double now = clock_();
  std::lock_guard lock(mutex_);
  if (buckets_.size() > kForgetAbove) forget_full_buckets(now);
  auto [it, added] = buckets_.try_emplace(address, Bucket{static_cast<double>(allowance_), now});
  Bucket& bucket = it->second;
  bucket.tokens = std::min<double>(allowance_, bucket.tokens + (now - bucket.updated) * refill_per_s_);
  bucket.updated = now;
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return std::nullopt;
  }
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil((1.0 - bucket.tokens) / refill_per_s_)));
}

void AddressRateLimiter::forget_full_buckets(double now) {
  std::erase_if(buckets_, [&](const auto& entry) {
    return entry.second.tokens + (now - entry.second.updated) * refill_per_s_ >= allowance_;
  });
}

}  // namespace kg::team
