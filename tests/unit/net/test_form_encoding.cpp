// net::percent_encode and form_encode (lib/net/form_encoding.hpp): only RFC 3986's unreserved
// bytes pass unencoded, so a value cannot add a field, end a query or change a character.
#include <Poco/URI.h>
#include <doctest/doctest.h>

#include <string>

#include "form_encoding.hpp"

namespace kg::net {
namespace {

bool unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

TEST_CASE("percent_encode: every byte but the unreserved ones is percent-encoded") {
  for (int byte = 0; byte < 256; ++byte) {
    const std::string one(1, static_cast<char>(byte));
    const std::string encoded = percent_encode(one);
    CAPTURE(byte);
    if (unreserved(one[0])) {
      CHECK(encoded == one);
    } else {
      const char* hex = "0123456789ABCDEF";
      CHECK(encoded == std::string{'%', hex[byte >> 4], hex[byte & 15]});
    }
  }
}

TEST_CASE("percent_encode: a value that looks like more fields stays one value") {
  const std::string value = "a b&c=d+e/f?g#h%i\"<j>";
  CHECK(percent_encode(value) == "a%20b%26c%3Dd%2Be%2Ff%3Fg%23h%25i%22%3Cj%3E");
  std::string decoded;
  Poco::URI::decode(percent_encode(value), decoded);
  CHECK(decoded == value);
  CHECK(percent_encode("é") == "%C3%A9");
}

TEST_CASE("form_encode: names and values encoded, in order, joined by &") {
  CHECK(form_encode({}) == "");
  CHECK(form_encode({{"grant_type", "refresh_token"}, {"scope", "openid email"}}) ==
        "grant_type=refresh_token&scope=openid%20email");
  CHECK(form_encode({{"a b", ""}, {"x", "1&y=2"}}) == "a%20b=&x=1%26y%3D2");
}

}  // namespace
}  // namespace kg::net
