#include "https_client.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/URI.h>

#include <istream>
#include <memory>

#include "address_policy.hpp"

namespace kg::net {
namespace {

std::string size_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20, kKiB = 1024;
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string read_capped(std::istream& in, std::size_t max_bytes) {
  std::string body;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    body.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (body.size() > max_bytes) {
      throw Poco::IOException("the answer is larger than " + size_text(max_bytes));
    }
  }
  return body;
}

const char* allowed_urls(PlainHttp plain_http) {
  return plain_http == PlainHttp::any_host
             ? "the URL must start with https:// or http://"
             : "the URL must be https:// (plain http:// only to a loopback address)";
}

std::unique_ptr<Poco::Net::HTTPClientSession> session_for(const Poco::URI& uri,
                                                          PlainHttp plain_http,
                                                          const Poco::Net::Context::Ptr& tls) {
  if (uri.getScheme() == "https") {
    return std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(), tls);
  }
  if (uri.getScheme() == "http" &&
      (plain_http == PlainHttp::any_host || is_loopback_host(uri.getHost()))) {
    return std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
  }
  throw Poco::InvalidArgumentException(allowed_urls(plain_http));
}

}  // namespace

HttpsClient::HttpsClient(std::chrono::milliseconds timeout, PlainHttp plain_http,
                         std::size_t max_answer_bytes)
    : timeout_(timeout), plain_http_(plain_http), max_answer_bytes_(max_answer_bytes) {
  Poco::Net::initializeSSL();
  // Verify the peer against the system's CA store, and its name against the certificate
  // (Context's extended verification, on by default); a failure is never ignored.
  tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                                Poco::Net::Context::VERIFY_RELAXED, 9, true);
}

HttpsAnswer HttpsClient::send(const HttpsRequest& call) const {
  try {
    const Poco::URI uri(call.url);
    const auto session = session_for(uri, plain_http_, tls_);
    const auto ms = timeout_.count();
    session->setTimeout(
        Poco::Timespan(static_cast<long>(ms / 1000), static_cast<long>(ms % 1000) * 1000));
    Poco::Net::HTTPRequest request(call.method, uri.getPathAndQuery(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(uri.getHost(), uri.getPort());
    for (const auto& [name, value] : call.headers) request.set(name, value);
    if (!call.content_type.empty()) request.setContentType(call.content_type);
    if (call.method != "GET") {
      request.setContentLength(static_cast<std::streamsize>(call.body.size()));
    }
    session->sendRequest(request) << call.body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    HttpsAnswer answer;
    answer.status = static_cast<int>(response.getStatus());
    answer.body = read_capped(in, max_answer_bytes_);
    return answer;
  } catch (const Poco::Exception& e) {
    throw HttpsUnreachable("cannot reach " + call.shown_url() + ": " + e.displayText());
  } catch (const std::exception& e) {
    throw HttpsUnreachable("cannot reach " + call.shown_url() + ": " + e.what());
  }
}

}  // namespace kg::net
