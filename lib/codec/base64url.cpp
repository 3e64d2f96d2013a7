#include "base64url.hpp"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/Exception.h>

#include <algorithm>
#include <iterator>
#include <sstream>

namespace kg::codec {
namespace {

bool is_base64url_character(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, Poco::BASE64_URL_ENCODING | Poco::BASE64_NO_PADDING);
  encoder.rdbuf()->setLineLength(0);
  encoder.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  encoder.close();
  return out.str();
}

std::string base64_encode(std::string_view bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  encoder.close();
  return out.str();
}

std::optional<std::string> base64url_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  // Poco's decoder skips whitespace; a token with a space in it is not the token.
  if (text.size() % 4 == 1 || !std::all_of(text.begin(), text.end(), is_base64url_character)) {
    return std::nullopt;
  }
  std::string padded(text);
  padded.append((4 - padded.size() % 4) % 4, '=');
  std::istringstream in(padded);
  Poco::Base64Decoder decoder(in, Poco::BASE64_URL_ENCODING);
  try {
    return std::string(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

}  // namespace kg::codec
