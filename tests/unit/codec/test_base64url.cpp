// codec::base64url_encode/decode (lib/codec/base64url.hpp): RFC 4648 §5 without padding, and
// nothing outside its alphabet decodes.
#include <doctest/doctest.h>

#include <string>

#include "base64url.hpp"

namespace kg::codec {
namespace {

TEST_CASE("base64url round-trips every length and refuses other alphabets") {
  std::string bytes;
  for (int i = 0; i < 70; ++i) {
    CAPTURE(i);
    const std::string encoded = base64url_encode(bytes);
    CHECK(encoded.size() == (bytes.size() * 4 + 2) / 3);  // no padding, no line breaks
    CHECK(base64url_decode(encoded) == bytes);
    bytes += static_cast<char>(i * 37 + 250);
  }
  CHECK(base64url_encode("") == "");
  CHECK(base64url_encode("\xfb\xff") == "-_8");
  CHECK(base64url_decode("-_8=") == std::string("\xfb\xff"));
  CHECK_FALSE(base64url_decode("+/8").has_value());
  CHECK_FALSE(base64url_decode("a").has_value());
  CHECK_FALSE(base64url_decode("-_ 8").has_value());
  CHECK_FALSE(base64url_decode("-_\n8").has_value());
  CHECK_FALSE(base64url_decode("-=_8").has_value());
}

TEST_CASE("base64url: RFC 4648 §10 test vectors, in the URL alphabet and unpadded") {
  CHECK(base64url_encode("f") == "Zg");
  CHECK(base64url_encode("fo") == "Zm8");
  CHECK(base64url_encode("foo") == "Zm9v");
  CHECK(base64url_encode("foobar") == "Zm9vYmFy");
  CHECK(base64url_decode("Zm9vYg") == std::string("foob"));
  CHECK(base64url_decode("Zm9vYmE=") == std::string("fooba"));
}

}  // namespace
}  // namespace kg::codec
