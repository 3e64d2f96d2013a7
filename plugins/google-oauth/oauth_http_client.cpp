#include "oauth_http_client.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/URI.h>

#include <istream>
#include <memory>

#include "credentials_plugin.hpp"

namespace kg::google_oauth {
namespace {

constexpr std::size_t kMaxAnswerBytes = 1 << 20;

std::string read_capped(std::istream& in, const std::string& url) {
  std::string body;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    body.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (body.size() > kMaxAnswerBytes) {
      throw Poco::IOException("the answer of " + url + " is larger than 1 MiB");
    }
  }
  return body;
}

}  // namespace

OAuthHttpClient::OAuthHttpClient(std::chrono::milliseconds timeout) : timeout_(timeout) {
  Poco::Net::initializeSSL();
  // Verify the peer against the system's CA store, and its name against the certificate
  // (Context's extended verification, on by default); a failure is never ignored.
  tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                                Poco::Net::Context::VERIFY_RELAXED, 9, true);
}

HttpAnswer OAuthHttpClient::send(const HttpCall& call) const {
  try {
    const Poco::URI uri(call.url);
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    if (uri.getScheme() == "https") {
      session = std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(), tls_);
    } else if (uri.getScheme() == "http") {
      session = std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
    } else {
      throw Poco::InvalidArgumentException("the URL must start with https:// or http://");
    }
    session->setTimeout(Poco::Timespan(static_cast<long>(timeout_.count() / 1000),
                                       static_cast<long>(timeout_.count() % 1000) * 1000));
    Poco::Net::HTTPRequest request(call.method, uri.getPathAndQuery(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(uri.getHost(), uri.getPort());
    for (const auto& [name, value] : call.headers) request.set(name, value);
    if (!call.content_type.empty()) request.setContentType(call.content_type);
    if (call.method != "GET") request.setContentLength(static_cast<std::streamsize>(call.body.size()));
    session->sendRequest(request) << call.body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    HttpAnswer answer;
    answer.status = static_cast<int>(response.getStatus());
    answer.body = read_capped(in, call.shown_url());
    return answer;
  } catch (const Poco::Exception& e) {
    throw plugin::CredentialsError(call.what + ": cannot reach " + call.shown_url() + ": " + e.displayText());
  } catch (const std::exception& e) {
    throw plugin::CredentialsError(call.what + ": cannot reach " + call.shown_url() + ": " + e.what());
  }
}

std::string form_body(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string body;
  for (const auto& [name, value] : fields) {
    if (!body.empty()) body += '&';
    std::string encoded;
    Poco::URI::encode(value, "!#$&'()*+,/:;=?@[]% ", encoded);
    body += name + "=" + encoded;
  }
  return body;
}

}  // namespace kg::google_oauth
