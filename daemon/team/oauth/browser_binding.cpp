#include "browser_binding.hpp"

namespace kg::team::oauth {

std::string signin_cookie(const std::string& secret, const std::string& public_url) {
  std::string cookie = std::string(kSignInCookie) + "=" + secret +
                       "; Path=/oauth; Max-Age=600; HttpOnly; SameSite=Lax";
  if (public_url.starts_with("https://")) cookie += "; Secure";
  return cookie;
}

std::string signin_cookie_value(const HttpExchange& request) {
  const auto header = request.headers.find("cookie");
  if (header == request.headers.end()) return {};
  const std::string& text = header->second;
  const std::string name = std::string(kSignInCookie) + "=";
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == ';' || text[at] == ',')) ++at;
    const auto end = text.find(';', at);
    const std::string pair = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (pair.rfind(name, 0) == 0) return pair.substr(name.size());
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

}  // namespace kg::team::oauth
