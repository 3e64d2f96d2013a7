#include "oauth_http_client.hpp"

#include "credentials_plugin.hpp"

namespace kg::google_oauth {

OAuthHttpClient::OAuthHttpClient(std::chrono::milliseconds timeout)
    : client_(timeout, net::PlainHttp::any_host) {}

HttpAnswer OAuthHttpClient::send(const HttpCall& call) const {
  try {
    return client_.send(call);
  } catch (const net::HttpsUnreachable& e) {
    throw plugin::CredentialsError(call.what + ": " + e.what());
  }
}

}  // namespace kg::google_oauth
