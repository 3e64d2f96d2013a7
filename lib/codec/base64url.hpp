// base64url (RFC 4648 §5) without padding: the alphabet of tokens, secrets and JWTs, which
// travel in URLs and form bodies. Team mode's secrets, sealed tokens, PKCE challenges and ID
// token parts use it; Poco's Base64Encoder/Decoder do the work. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kg::codec {

// `bytes` in base64url, no '=' padding: "\xfb\xff" -> "-_8".
std::string base64url_encode(std::string_view bytes);

// The bytes `text` encodes; trailing '=' padding is accepted. nullopt when `text` holds anything
// but base64url characters (whitespace, '+' or '/' included) or has an impossible length.
std::optional<std::string> base64url_decode(std::string_view text);

// `bytes` in standard base64 (RFC 4648 §4) with '=' padding and no line breaks: MCP's blob
// resource contents (a file a program left under /app/out).
std::string base64_encode(std::string_view bytes);

}  // namespace kg::codec
