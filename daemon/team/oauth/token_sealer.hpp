// Seals the upstream provider's tokens (a user's refresh and access token) before they reach
// SQLite: AES-256-GCM with a random 96-bit nonce per seal, the key in <state_dir>/
// oauth-sealing.key (32 random bytes, mode 0600, created on first use). The associated data
// binds a sealed value to its place ("<user_id> refresh"), so a value copied to another row or
// user does not open. Losing the key file only signs everybody out (their rows no longer open).
//
// Thread-safe after construction (the key is read once).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace kg::team::oauth {

class SealingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TokenSealer {
 public:
  // Reads the key file, creating it (0600, in an existing or new 0700 directory) when missing.
  // Throws SealingError naming the file when it cannot be made or read, is not 32 bytes, or is
  // readable by others than its owner.
  explicit TokenSealer(const std::string& state_dir);
  ~TokenSealer();
  TokenSealer(const TokenSealer&) = delete;
  TokenSealer& operator=(const TokenSealer&) = delete;

  // base64url text of version | nonce | ciphertext | tag. Throws SealingError.
  std::string seal(std::string_view plaintext, std::string_view associated_data) const;
  // Throws SealingError when the text is damaged, was sealed with another key or for other
  // associated data.
  std::string open(std::string_view sealed, std::string_view associated_data) const;

  const std::string& key_path() const { return key_path_; }

 private:
  std::string key_path_;
  std::string key_;  // 32 bytes
};

}  // namespace kg::team::oauth
