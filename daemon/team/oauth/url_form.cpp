#include "url_form.hpp"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <stdexcept>

#include "address_policy.hpp"
#include "form_encoding.hpp"

namespace kg::team::oauth {
namespace {

std::string decode_component(std::string_view text) {
  std::string spaced(text);
  for (char& c : spaced) {
    if (c == '+') c = ' ';
  }
  std::string out;
  try {
    Poco::URI::decode(spaced, out);
  } catch (const Poco::Exception& e) {
    throw std::invalid_argument("bad percent-encoding in \"" + std::string(text) + "\"");
  }
  return out;
}

}  // namespace

const std::string& FormFields::get(const std::string& name) const {
  static const std::string kEmpty;
  const auto found = values.find(name);
  return found == values.end() ? kEmpty : found->second;
}

FormFields parse_form(std::string_view text) {
  FormFields fields;
  while (!text.empty()) {
    const std::size_t end = text.find('&');
    const std::string_view pair = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    std::string name = decode_component(pair.substr(0, equals));
    std::string value =
        equals == std::string_view::npos ? std::string() : decode_component(pair.substr(equals + 1));
    if (!fields.values.emplace(name, std::move(value)).second) fields.repeated.push_back(name);
  }
  return fields;
}

std::string with_query(const std::string& url,
                       const std::vector<std::pair<std::string, std::string>>& fields) {
  const std::size_t fragment = url.find('#');
  const std::string base = url.substr(0, fragment);
  const char separator = base.find('?') == std::string::npos ? '?' : '&';
  return base + separator + net::form_encode(fields);
}

std::string redirect_uri_problem(const std::string& uri) {
  try {
    const Poco::URI parsed(uri);
    if (!parsed.getFragment().empty() || uri.find('#') != std::string::npos) {
      return "a redirect URI must not have a fragment";
    }
    if (parsed.getHost().empty()) return "a redirect URI must be an absolute URL with a host";
    if (parsed.getScheme() == "https") return "";
    if (parsed.getScheme() == "http" && net::is_loopback_host(parsed.getHost())) return "";
    return "a redirect URI must be https, or http on a loopback address (127.0.0.1, [::1], "
           "localhost)";
  } catch (const Poco::Exception&) {
    return "a redirect URI must be an absolute URL";
  }
}

}  // namespace kg::team::oauth
