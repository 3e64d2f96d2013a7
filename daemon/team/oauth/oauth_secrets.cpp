#include "oauth_secrets.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>

#include "base64url.hpp"

namespace kg::team::oauth {

std::string random_secret(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("OpenSSL's random generator failed to make a secret");
  }
  return codec::base64url_encode(raw);
}

std::string sha256(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL failed to compute a SHA-256 digest");
  }
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

std::string sha256_hex(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : sha256(data)) {
    out += kHex[(static_cast<unsigned char>(c) >> 4) & 15];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

bool constant_time_equals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace kg::team::oauth
