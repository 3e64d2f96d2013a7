// The HTTP(S) client of the credential plugins: one request to an OAuth token endpoint, the IAM
// Credentials API, tokeninfo/userinfo or a metadata server. https:// is verified against the
// system CA store (Poco NetSSL), http:// is for loopback peers and metadata servers.
//
// One per plugin; thread-safe (every request has its own session).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <Poco/Net/Context.h>

namespace kg::google_oauth {

struct HttpCall {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type;  // of the body
  // What the request is for, for error messages: "Refreshing the user's token".
  std::string what;

  // The URL as messages show it: without its query, which may carry a token (tokeninfo).
  std::string shown_url() const { return url.substr(0, url.find('?')); }
};

struct HttpAnswer {
  int status = 0;
  std::string body;
};

class OAuthHttpClient {
 public:
  explicit OAuthHttpClient(std::chrono::milliseconds timeout);

  // Throws plugin::CredentialsError "<what>: cannot reach <url>: <reason>" when there is no
  // answer (bad URL, connection refused, TLS or certificate failure, timeout, an answer over
  // 1 MiB). Any HTTP status is an answer.
  HttpAnswer send(const HttpCall& call) const;

 private:
  std::chrono::milliseconds timeout_;
  Poco::Net::Context::Ptr tls_;
};

// application/x-www-form-urlencoded body of the pairs.
std::string form_body(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace kg::google_oauth
