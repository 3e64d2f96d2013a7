#include "unauthenticated_gate.hpp"

#include <utility>

namespace kg::team {
namespace {

HttpReply refusal(int status, const std::string& error, const std::string& description,
                  std::int64_t retry_after_s) {
  HttpReply reply;
  reply.status = status;
  reply.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
  // The descriptions are our own words: no quote or backslash to escape.
  reply.body = R"({"error":")" + error + R"(","error_description":")" + description + R"("})";
  return reply;
}

}  // namespace

UnauthenticatedGate::Slot& UnauthenticatedGate::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    this->~Slot();
    gate_ = std::exchange(other.gate_, nullptr);
  }
  return *this;
}

UnauthenticatedGate::Slot::~Slot() {
  if (gate_ != nullptr) gate_->in_handlers_.fetch_sub(1);
  gate_ = nullptr;
}

UnauthenticatedGate::UnauthenticatedGate(std::uint32_t per_minute, std::uint32_t max_at_once)
    : per_address_(per_minute, 60), max_at_once_(std::max<std::uint32_t>(max_at_once, 1)) {}

std::optional<HttpReply> UnauthenticatedGate::admit(const std::string& address, Slot& slot) {
  if (const auto retry_s = per_address_.take(address)) {
    return refusal(429, "too_many_requests",
                   "Too many requests without sign-in from your address (at most " +
                       std::to_string(per_address_.allowance()) +
                       " a minute, [team] unauthenticated_per_minute); try again in " +
                       std::to_string(*retry_s) + " seconds.",
                   *retry_s);
  }
  if (in_handlers_.fetch_add(1) >= max_at_once_) {
    in_handlers_.fetch_sub(1);
    return refusal(503, "temporarily_unavailable",
                   "The server is busy with other sign-ins; try again in a few seconds.", 2);
  }
  slot = Slot(this);
  return std::nullopt;
}

}  // namespace kg::team
