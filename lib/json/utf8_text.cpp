#include "utf8_text.hpp"

namespace kg::json {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

bool in_range(unsigned char byte, unsigned char low, unsigned char high) {
  return byte >= low && byte <= high;
}

bool is_continuation(std::string_view text, std::size_t at) {
  return at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
}

// Length of the well-formed sequence starting at bytes[at], or 0 (Unicode table 3-7).
std::size_t sequence_length(std::string_view bytes, std::size_t at) {
  const auto byte = [&](std::size_t offset) -> unsigned char {
    return at + offset < bytes.size() ? static_cast<unsigned char>(bytes[at + offset]) : 0;
  };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  const auto continuation = [&](std::size_t offset) { return in_range(byte(offset), 0x80, 0xBF); };
  if (in_range(lead, 0xC2, 0xDF)) return continuation(1) ? 2 : 0;
  if (in_range(lead, 0xE0, 0xEF)) {
    const unsigned char low = lead == 0xE0 ? 0xA0 : 0x80;
    const unsigned char high = lead == 0xED ? 0x9F : 0xBF;
    return in_range(byte(1), low, high) && continuation(2) ? 3 : 0;
  }
  if (in_range(lead, 0xF0, 0xF4)) {
    const unsigned char low = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned char high = lead == 0xF4 ? 0x8F : 0xBF;
    return in_range(byte(1), low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) noexcept {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t length = sequence_length(bytes, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string to_valid_utf8(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size());
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t length = sequence_length(bytes, at);
    if (length == 0) {
      text += kReplacement;
      ++at;
    } else {
      text.append(bytes.substr(at, length));
      at += length;
    }
  }
  return text;
}

std::size_t utf8_boundary_before(std::string_view text, std::size_t at) noexcept {
  if (at >= text.size()) return text.size();
  for (int step = 0; step < 3 && at > 0 && is_continuation(text, at); ++step) --at;
  return at;
}

std::size_t utf8_boundary_after(std::string_view text, std::size_t at) noexcept {
  if (at >= text.size()) return text.size();
  for (int step = 0; step < 3 && is_continuation(text, at); ++step) ++at;
  return at;
}

}  // namespace kg::json
