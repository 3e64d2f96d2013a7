// lib/codec/random_id: ids of the asked length in lowercase hex, different every time.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "random_id.hpp"

TEST_CASE("random_hex_id gives 2 * bytes lowercase hex digits, never the same twice") {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string id = kg::codec::random_hex_id(16, "a test id");
    CHECK(id.size() == 32);
    CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
    seen.insert(id);
  }
  CHECK(seen.size() == 100);
  CHECK(kg::codec::random_hex_id(3, "a short id").size() == 6);
}
