// The HTTP(S) client of the credential plugins: one request to an OAuth token endpoint, the IAM
// Credentials API, tokeninfo/userinfo or a metadata server. lib/net's HttpsClient (https://
// verified against the system CA store; answers capped at 1 MiB) with plain http:// to any host,
// since a metadata server speaks only http; its errors become plugin::CredentialsError naming
// what the request was for.
//
// One per plugin; thread-safe (every request has its own session).
#pragma once

#include <chrono>
#include <string>

#include "https_client.hpp"

namespace kg::google_oauth {

struct HttpCall : net::HttpsRequest {
  // What the request is for, for error messages: "Refreshing the user's token".
  std::string what;
};

using HttpAnswer = net::HttpsAnswer;

class OAuthHttpClient {
 public:
  explicit OAuthHttpClient(std::chrono::milliseconds timeout);

  // Throws plugin::CredentialsError "<what>: cannot reach <url>: <reason>" when there is no
  // answer (bad URL, connection refused, TLS or certificate failure, timeout, an answer over
  // 1 MiB). Any HTTP status is an answer.
  HttpAnswer send(const HttpCall& call) const;

 private:
  net::HttpsClient client_;
};

}  // namespace kg::google_oauth
