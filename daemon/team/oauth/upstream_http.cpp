#include "upstream_http.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/URI.h>

#include <istream>
#include <memory>

#include "url_form.hpp"

namespace kg::team::oauth {
namespace {

constexpr std::size_t kMaxAnswerBytes = 1 << 20;

std::string read_capped(std::istream& in) {
  std::string body;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    body.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (body.size() > kMaxAnswerBytes) throw Poco::IOException("the answer is larger than 1 MiB");
  }
  return body;
}

}  // namespace

UpstreamHttp::UpstreamHttp(std::chrono::milliseconds timeout) : timeout_(timeout) {
  Poco::Net::initializeSSL();
  // Verify the peer against the system's CA store, and its name against the certificate
  // (Context's extended verification, on by default); a failure is never ignored.
  tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                                Poco::Net::Context::VERIFY_RELAXED, 9, true);
}

UpstreamAnswer UpstreamHttp::get(const std::string& url, const std::string& what) const {
  return send("GET", url, "", what);
}

UpstreamAnswer UpstreamHttp::post_form(const std::string& url, const std::string& form_body,
                                       const std::string& what) const {
  return send("POST", url, form_body, what);
}

UpstreamAnswer UpstreamHttp::send(const std::string& method, const std::string& url,
                                  const std::string& body, const std::string& what) const {
  const std::string shown_url = url.substr(0, url.find('?'));
  try {
    const Poco::URI uri(url);
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    if (uri.getScheme() == "https") {
      session = std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(), tls_);
    } else if (uri.getScheme() == "http" && is_loopback_host(uri.getHost())) {
      session = std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
    } else {
      throw Poco::InvalidArgumentException(
          "the URL must be https:// (plain http:// only to a loopback address)");
    }
    const auto ms = timeout_.count();
    session->setTimeout(Poco::Timespan(static_cast<long>(ms / 1000), static_cast<long>(ms % 1000) * 1000));
    Poco::Net::HTTPRequest request(method, uri.getPathAndQuery(), Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(uri.getHost(), uri.getPort());
    request.set("Accept", "application/json");
    if (method == "POST") {
      request.setContentType("application/x-www-form-urlencoded");
      request.setContentLength(static_cast<std::streamsize>(body.size()));
    }
    session->sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    UpstreamAnswer answer;
    answer.status = static_cast<int>(response.getStatus());
    answer.body = read_capped(in);
    return answer;
  } catch (const Poco::Exception& e) {
    throw UpstreamError(what + ": cannot reach " + shown_url + ": " + e.displayText());
  } catch (const std::exception& e) {
    throw UpstreamError(what + ": cannot reach " + shown_url + ": " + e.what());
  }
}

}  // namespace kg::team::oauth
