#include "retrying_http_client.hpp"

#include <algorithm>
#include <random>
#include <thread>

namespace kg::sandbox {
namespace {

bool retriable_status(int status) {
  return status == 500 || status == 502 || status == 503 || status == 504;
}

bool cancelled(const net::HttpRequestOptions& options) {
  return options.canceller != nullptr && options.canceller->cancelled();
}

// Sleeps `delay`, waking early when the request is cancelled. True when it slept it all.
bool sleep_unless_cancelled(std::chrono::milliseconds delay, const net::HttpRequestOptions& options) {
  const auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
    if (cancelled(options)) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(50), until - std::chrono::steady_clock::now()));
  }
  return !cancelled(options);
}

}  // namespace

bool RetryingHttpClient::retriable(std::string_view method, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  return !(method == "POST" && path == "/execute");
}

std::chrono::milliseconds RetryingHttpClient::delay_after(int attempt) const {
  static thread_local std::mt19937 rng{std::random_device{}()};
  double delay = static_cast<double>(policy_.first_delay.count());
  for (int i = 1; i < attempt; ++i) delay *= 2;
  delay = std::min(delay, static_cast<double>(policy_.max_delay.count()));
  std::uniform_real_distribution<double> factor(1.0 - policy_.jitter, 1.0 + policy_.jitter);
  return std::chrono::milliseconds(static_cast<long long>(delay * factor(rng)));
}

net::HttpResponse RetryingHttpClient::request(std::string_view method, std::string_view target,
                                              std::string_view body,
                                              const net::HttpRequestOptions& options) const {
  const bool may_retry = retriable(method, target);
  for (int attempt = 1;; ++attempt) {
    const bool last = !may_retry || attempt >= policy_.attempts;
    try {
      net::HttpResponse response = inner_->request(method, target, body, options);
      if (last || !retriable_status(response.status)) return response;
    } catch (const net::HttpTransportError&) {
      if (last || cancelled(options)) throw;
    }
    if (!sleep_unless_cancelled(delay_after(attempt), options)) {
      throw net::HttpTransportError(
          "The request " + std::string(method) + " " + std::string(target) + " to " + describe() +
              " was cancelled while it waited to be retried",
          false);
    }
  }
}

}  // namespace kg::sandbox
