// The authorization server's HTTP client towards the upstream OpenID Connect provider
// (discovery, JWKS, token endpoint) and Client ID Metadata Documents: lib/net's HttpsClient
// (https:// verified against the system CA store and the certificate's name; answers capped at
// 1 MiB) with plain http:// only to a loopback host (a test provider, a local proxy), never
// across the network, asking for JSON and naming what each request was for in its errors.
//
// Thread-safe: every request has its own session.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "https_client.hpp"

namespace kg::team::oauth {

class UpstreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using UpstreamAnswer = net::HttpsAnswer;

class UpstreamHttp {
 public:
  explicit UpstreamHttp(std::chrono::milliseconds timeout = std::chrono::seconds(15));

  // Throws UpstreamError "<what>: cannot reach <url without query>: <reason>" when there is no
  // answer (refused, TLS failure, timeout, an answer over 1 MiB, a non-loopback http URL). Any
  // HTTP status is an answer.
  UpstreamAnswer get(const std::string& url, const std::string& what) const;
  UpstreamAnswer post_form(const std::string& url, const std::string& form_body,
                           const std::string& what) const;

 private:
  UpstreamAnswer send(net::HttpsRequest request, const std::string& what) const;

  net::HttpsClient client_;
};

}  // namespace kg::team::oauth
