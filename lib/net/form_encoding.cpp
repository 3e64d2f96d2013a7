#include "form_encoding.hpp"

#include <Poco/URI.h>

namespace kg::net {
namespace {

// Every printable ASCII byte outside RFC 3986's unreserved set; Poco::URI::encode also encodes
// controls, space and every byte above 0x7e on its own.
constexpr const char* kFormReserved = "!\"#$%&'()*+,/:;<=>?@[\\]^`{|}";

}  // namespace

std::string percent_encode(std::string_view text) {
  std::string out;
  Poco::URI::encode(std::string(text), kFormReserved, out);
  return out;
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += percent_encode(name) + "=" + percent_encode(value);
  }
  return out;
}

}  // namespace kg::net
