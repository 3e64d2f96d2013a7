// One HTTP(S) request to a server outside the machine, answered whole: team mode's client of its
// upstream OpenID Connect provider (daemon/team/oauth/upstream_http.hpp) and the credential
// plugins' client of Google's token, IAM and metadata endpoints
// (plugins/google-oauth/oauth_http_client.hpp). https:// is verified against the system's CA
// store and the certificate's name (Poco NetSSL; a failure is never ignored); plain http:// is
// allowed as the caller's PlainHttp says. The answer's body is capped, so a hostile server
// cannot make the caller hold more; reading it (lib/json's bounded reader) is the caller's.
//
// Thread-safe: every request has its own session; the TLS context is shared read-only.
#pragma once

#include <Poco/Net/Context.h>

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kg::net {

// No answer: a bad or refused URL, connection refused, a TLS or certificate failure, a timeout,
// an answer over the cap. "cannot reach <url without its query>: <reason>".
class HttpsUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HttpsRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type;  // of the body; none when empty

  // The URL as messages show it: without its query, which may carry a token (tokeninfo).
  std::string shown_url() const { return url.substr(0, url.find('?')); }
};

struct HttpsAnswer {
  int status = 0;
  std::string body;
};

// Where plain http:// may go: only to a loopback host (a test provider, a local proxy), or to any
// host (a cloud metadata server, which speaks only http on a link-local address).
enum class PlainHttp { loopback_only, any_host };

inline constexpr std::size_t kDefaultMaxAnswerBytes = std::size_t{1} << 20;

class HttpsClient {
 public:
  HttpsClient(std::chrono::milliseconds timeout, PlainHttp plain_http,
              std::size_t max_answer_bytes = kDefaultMaxAnswerBytes);

  // Any HTTP status is an answer. Throws HttpsUnreachable when there is none.
  HttpsAnswer send(const HttpsRequest& request) const;

 private:
  std::chrono::milliseconds timeout_;
  PlainHttp plain_http_;
  std::size_t max_answer_bytes_;
  Poco::Net::Context::Ptr tls_;
};

}  // namespace kg::net
