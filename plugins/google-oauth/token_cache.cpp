#include "token_cache.hpp"

#include "credentials_plugin.hpp"
#include "utc_time.hpp"

namespace kg::google_oauth {

std::shared_ptr<TokenCache::Slot> TokenCache::slot(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto& found = slots_[key];
  if (!found) found = std::make_shared<Slot>();
  return found;
}

MintedToken TokenCache::get(const std::string& key,
                            const std::function<MintedToken(SystemTime now)>& mint) {
  const auto entry = slot(key);
  std::lock_guard lock(entry->mutex);
  const SystemTime now = clock_();
  if (entry->token && entry->token->expiry - now > kRefreshMargin) return *entry->token;
  entry->token.reset();
  MintedToken fresh = mint(now);
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(fresh.expiry - now);
  if (left <= kRefreshMargin) {
    throw plugin::CredentialsError(
        "the new access token is valid for only " + std::to_string(left.count()) +
        " s (until " + utc::to_rfc3339(fresh.expiry) +
        "); a run needs one valid for more than 5 minutes");
  }
  entry->token = fresh;
  return fresh;
}

std::optional<MintedToken> TokenCache::peek(const std::string& key) {
  const auto entry = slot(key);
  std::lock_guard lock(entry->mutex);
  if (entry->token && entry->token->expiry - clock_() > kRefreshMargin) return entry->token;
  return std::nullopt;
}

}  // namespace kg::google_oauth
