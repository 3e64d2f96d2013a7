#include "user_call_limits.hpp"

namespace kg::team {

std::optional<UserCallLimits::Refusal> UserCallLimits::admit(const std::string& user,
                                                             Clock::time_point now) {
  std::lock_guard lock(mutex_);
  Usage& usage = users_[user];
  while (!usage.started.empty() && now - usage.started.front() >= std::chrono::minutes(1)) {
    usage.started.pop_front();
  }
  if (usage.in_flight >= max_in_flight_) {
    return Refusal{"You have " + std::to_string(usage.in_flight) +
                       " tool calls waiting or running, the most this server allows one user "
                       "([team] max_queued_per_user); wait for one to finish",
                   1};
  }
  if (usage.started.size() >= calls_per_minute_) {
    const auto free_at = usage.started.front() + std::chrono::minutes(1);
    const auto wait_s = std::chrono::ceil<std::chrono::seconds>(free_at - now).count();
    return Refusal{"You started " + std::to_string(usage.started.size()) +
                       " tool calls in the last minute, the most this server allows one user "
                       "([team] calls_per_minute); try again in " + std::to_string(wait_s) + " s",
                   static_cast<std::uint32_t>(wait_s < 1 ? 1 : wait_s)};
  }
  usage.started.push_back(now);
  ++usage.in_flight;
  return std::nullopt;
}

void UserCallLimits::finished(const std::string& user) {
  std::lock_guard lock(mutex_);
  auto it = users_.find(user);
  if (it == users_.end() || it->second.in_flight == 0) return;
  --it->second.in_flight;
}

}  // namespace kg::team
