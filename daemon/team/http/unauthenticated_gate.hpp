// What the HTTP server lets requests without sign-in do (the OAuth endpoints, /mcp without a
// bearer token, unknown paths): per client address at most [team] unauthenticated_per_minute,
// and at most `max_at_once` in handlers together (a quarter of the server's threads), so the
// rest stay free for signed-in users. Over either, the request gets 429 or 503 with
// Retry-After at once. docs/team-mode.md, "Slow and unknown clients". Called from any HTTP
// thread; thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "address_rate_limiter.hpp"
#include "http_exchange.hpp"

namespace kg::team {

class UnauthenticatedGate {
 public:
  // Holds one of the places in handlers while it lives.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();

   private:
    friend class UnauthenticatedGate;
    explicit Slot(UnauthenticatedGate* gate) : gate_(gate) {}
    UnauthenticatedGate* gate_ = nullptr;
  };

  UnauthenticatedGate(std::uint32_t per_minute, std::uint32_t max_at_once);

  // The reply refusing the request, or nullopt with `slot` now held.
  std::optional<HttpReply> admit(const std::string& address, Slot& slot);

 private:
  AddressRateLimiter per_address_;
  const std::uint32_t max_at_once_;
  std::atomic<std::uint32_t> in_handlers_{0};
};

}  // namespace kg::team
