// A net::HttpClient decorator that lets another thread stop the request in flight and refuse
// every later one (Sandbox::interrupt() at daemon shutdown): each request runs under a
// RequestCanceller (the caller's, or this client's own when the caller gave none), which
// interrupt() cancels. One request at a time (a sandbox serves one call at a time).
#pragma once

#include <memory>
#include <mutex>

#include "http_client.hpp"

namespace kg::sandbox {

class InterruptibleHttpClient final : public net::HttpClient {
 public:
  explicit InterruptibleHttpClient(std::unique_ptr<net::HttpClient> inner) : inner_(std::move(inner)) {}

  net::HttpResponse request(std::string_view method, std::string_view target,
                            std::string_view body,
                            const net::HttpRequestOptions& options) const override;
  std::string describe() const override { return inner_->describe(); }

  // From any thread; never throws. The request in flight fails now, later ones at once.
  void interrupt() noexcept;

 private:
  std::unique_ptr<net::HttpClient> inner_;
  mutable std::mutex mutex_;
  mutable net::RequestCanceller own_canceller_;
  mutable net::RequestCanceller* in_flight_ = nullptr;
  bool interrupted_ = false;
};

}  // namespace kg::sandbox
