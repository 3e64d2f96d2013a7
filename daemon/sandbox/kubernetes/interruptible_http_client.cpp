#include "interruptible_http_client.hpp"

namespace kg::sandbox {

net::HttpResponse InterruptibleHttpClient::request(std::string_view method, std::string_view target,
                                                   std::string_view body,
                                                   const net::HttpRequestOptions& options) const {
  net::HttpRequestOptions with_canceller = options;
  {
    const std::lock_guard lock(mutex_);
    if (interrupted_) {
      throw net::HttpTransportError("The sandbox at " + describe() + " was interrupted (the "
                                    "daemon is stopping)", false);
    }
    if (with_canceller.canceller == nullptr) {
      own_canceller_.reset();
      with_canceller.canceller = &own_canceller_;
    }
    in_flight_ = with_canceller.canceller;
  }
  struct Clear {
    const InterruptibleHttpClient& self;
    ~Clear() {
      const std::lock_guard lock(self.mutex_);
      self.in_flight_ = nullptr;
    }
  } clear{*this};
  return inner_->request(method, target, body, with_canceller);
}

void InterruptibleHttpClient::interrupt() noexcept {
  const std::lock_guard lock(mutex_);
  interrupted_ = true;
  if (in_flight_ != nullptr) in_flight_->cancel();
}

}  // namespace kg::sandbox
