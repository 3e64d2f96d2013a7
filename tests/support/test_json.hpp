// Tests read JSON the way the product does, through lib/json's one reader (docs/security.md,
// "JSON from outside"; tests/lint/check_json_parsers.py finds any other parse call), with
// generous bounds: deep enough for any answer the daemon gives, strict about UTF-8.
#pragma once

#include <cstdint>
#include <string_view>

#include "json_reader.hpp"

namespace kg::test {

inline constexpr json::ReadLimits kTestJsonLimits{SIZE_MAX, 512, json::InvalidUtf8::refuse};

// `text` read within kTestJsonLimits: refused says why it is not JSON (document is then null).
inline json::ReadJson read_test_json(std::string_view text) {
  return json::read_json(text, kTestJsonLimits);
}

// The document, or null when `text` is not JSON (a test then fails on the shape it expects).
inline rapidjson::Document test_json(std::string_view text) {
  return std::move(read_test_json(text).document);
}

}  // namespace kg::test
