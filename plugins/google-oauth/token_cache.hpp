// Tokens by identity, kept until five minutes before they expire. Each identity has its own
// lock, so one identity's refresh (a network round trip) never holds up another's, and
// concurrent calls of one identity make one refresh, not one each.
//
// Owned by a credential plugin; thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "token_answer.hpp"

namespace kg::google_oauth {

class TokenCache {
 public:
  static constexpr std::chrono::minutes kRefreshMargin{5};
  using Clock = std::function<SystemTime()>;

  explicit TokenCache(Clock clock = [] { return std::chrono::system_clock::now(); })
      : clock_(std::move(clock)) {}

  // The token cached for `key` while it has more than kRefreshMargin left; else mint(now) under
  // the key's lock. What mint throws passes through and nothing is cached. Throws
  // plugin::CredentialsError when a fresh token has kRefreshMargin or less left (a sandbox's
  // metadata emulator must promise more than five minutes, docs/contracts.md §2).
  MintedToken get(const std::string& key, const std::function<MintedToken(SystemTime now)>& mint);
  // The cached token for `key` if it is still usable; never mints.
  std::optional<MintedToken> peek(const std::string& key);
  SystemTime now() const { return clock_(); }

 private:
  struct Slot {
    std::mutex mutex;
    std::optional<MintedToken> token;
  };
  std::shared_ptr<Slot> slot(const std::string& key);

  Clock clock_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Slot>> slots_;
};

}  // namespace kg::google_oauth
