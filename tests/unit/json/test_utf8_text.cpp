// The one UTF-8 validator and repair that the sandbox server, the compiled-go plugin, the daemon
// and the CLI share.
#include <doctest/doctest.h>

#include "utf8_text.hpp"

using kg::json::is_valid_utf8;
using kg::json::to_valid_utf8;

TEST_CASE("to_valid_utf8 keeps valid text and replaces each bad byte with U+FFFD") {
  CHECK(to_valid_utf8("plain ascii") == "plain ascii");
  CHECK(to_valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x90\xB9") == "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x90\xB9");
  CHECK(to_valid_utf8("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(to_valid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  CHECK(to_valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  CHECK(to_valid_utf8("cut \xE2\x82") == "cut \xEF\xBF\xBD\xEF\xBF\xBD");  // truncated at the end
  CHECK(to_valid_utf8(std::string("nul \0 kept", 10)) == std::string("nul \0 kept", 10));
}

TEST_CASE("is_valid_utf8 accepts exactly the well-formed sequences of Unicode table 3-7") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("\xC2\x80 \xDF\xBF \xE0\xA0\x80 \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF"));
  CHECK(is_valid_utf8("\xF0\x90\x80\x80 \xF4\x8F\xBF\xBF"));  // U+10000 and U+10FFFF
  CHECK_FALSE(is_valid_utf8("\xFF\xFE"));
  CHECK_FALSE(is_valid_utf8("\xC0\x80"));          // overlong NUL
  CHECK_FALSE(is_valid_utf8("\xC1\xBF"));          // overlong
  CHECK_FALSE(is_valid_utf8("\xE0\x9F\xBF"));      // overlong three-byte form
  CHECK_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));  // overlong four-byte form
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));      // U+D800, a surrogate
  CHECK_FALSE(is_valid_utf8("\xED\xBF\xBF"));      // U+DFFF
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));
  CHECK_FALSE(is_valid_utf8("\xE2\x82"));          // cut short
  CHECK_FALSE(is_valid_utf8("\x80"));              // a continuation byte alone
  for (const char* bad : {"\xFF\xFE", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82"}) {
    CAPTURE(bad);
    CHECK(is_valid_utf8(to_valid_utf8(bad)));
  }
}
