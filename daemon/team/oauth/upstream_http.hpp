// The authorization server's HTTP client towards the upstream OpenID Connect provider
// (discovery, JWKS, token endpoint). https:// is verified against the system CA store and the
// certificate's name (Poco NetSSL); plain http:// is accepted only for a loopback host (a test
// provider, a local proxy), never across the network.
//
// Thread-safe: every request has its own session.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include <Poco/Net/Context.h>

namespace kg::team::oauth {

class UpstreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct UpstreamAnswer {
  int status = 0;
  std::string body;
};

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
  UpstreamAnswer send(const std::string& method, const std::string& url, const std::string& body,
                      const std::string& what) const;

  std::chrono::milliseconds timeout_;
  Poco::Net::Context::Ptr tls_;
};

}  // namespace kg::team::oauth
