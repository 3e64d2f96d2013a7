// A net::HttpClient decorator that retries the runtime API's file operations (docs/contracts.md §1):
// at most `attempts` tries on 500/502/503/504 answers and connection errors, waiting between
// them with exponential backoff (0.5 s doubling to 8 s) and ±25 % jitter. POST /execute is never
// retried: a command may have acted before the answer was lost. A request whose canceller was
// cancelled is not retried either. Thread-safe as the client it wraps.
#pragma once

#include <chrono>
#include <memory>

#include "http_client.hpp"

namespace kg::sandbox {

struct RetryPolicy {
  int attempts = 6;
  std::chrono::milliseconds first_delay{500};
  std::chrono::milliseconds max_delay{8'000};
  double jitter = 0.25;  // each delay is multiplied by a random factor in [1 - jitter, 1 + jitter]
};

class RetryingHttpClient final : public net::HttpClient {
 public:
  RetryingHttpClient(std::unique_ptr<net::HttpClient> inner, RetryPolicy policy = {})
      : inner_(std::move(inner)), policy_(policy) {}

  net::HttpResponse request(std::string_view method, std::string_view target,
                            std::string_view body,
                            const net::HttpRequestOptions& options) const override;
  std::string describe() const override { return inner_->describe(); }

  // Whether a request may be sent again (everything but /execute).
  static bool retriable(std::string_view method, std::string_view target);
  // The wait before attempt `attempt` + 1 (attempt counts from 1), jitter applied.
  std::chrono::milliseconds delay_after(int attempt) const;

 private:
  std::unique_ptr<net::HttpClient> inner_;
  RetryPolicy policy_;
};

}  // namespace kg::sandbox
