#include "upstream_http.hpp"

#include <utility>

namespace kg::team::oauth {

UpstreamHttp::UpstreamHttp(std::chrono::milliseconds timeout)
    : client_(timeout, net::PlainHttp::loopback_only) {}

UpstreamAnswer UpstreamHttp::get(const std::string& url, const std::string& what) const {
  net::HttpsRequest request;
  request.url = url;
  return send(std::move(request), what);
}

UpstreamAnswer UpstreamHttp::post_form(const std::string& url, const std::string& form_body,
                                       const std::string& what) const {
  net::HttpsRequest request;
  request.method = "POST";
  request.url = url;
  request.body = form_body;
  request.content_type = "application/x-www-form-urlencoded";
  return send(std::move(request), what);
}

UpstreamAnswer UpstreamHttp::send(net::HttpsRequest request, const std::string& what) const {
  request.headers.emplace_back("Accept", "application/json");
  try {
    return client_.send(request);
  } catch (const net::HttpsUnreachable& e) {
    throw UpstreamError(what + ": " + e.what());
  }
}

}  // namespace kg::team::oauth
