#include "token_sealer.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "base64url.hpp"
#include "oauth_secrets.hpp"

namespace kg::team::oauth {
namespace {

constexpr std::size_t kKeyBytes = 32, kNonceBytes = 12, kTagBytes = 16;
constexpr char kVersion = 1;

std::string errno_text() { return std::strerror(errno); }

void write_new_key(const std::string& path) {
  std::string key(kKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), kKeyBytes) != 1) {
    throw SealingError("Cannot create the token sealing key " + path + ": OpenSSL's random generator failed");
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return;  // another process made it first: read that one
    throw SealingError("Cannot create the token sealing key " + path + ": " + errno_text());
  }
  const bool written = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  OPENSSL_cleanse(key.data(), key.size());
  if (!written || !synced) {
    ::unlink(path.c_str());
    throw SealingError("Cannot write the token sealing key " + path + ": " + errno_text());
  }
}

std::string read_key(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw SealingError("Cannot read the token sealing key " + path + ": " + errno_text());
  struct stat info{};
  if (::fstat(fd, &info) != 0 || (info.st_mode & 077) != 0) {
    ::close(fd);
    throw SealingError("The token sealing key " + path +
                       " is readable by other users; make it private with chmod 600 (or delete "
                       "it to sign everybody out and start with a new key)");
  }
  std::string key(kKeyBytes + 1, '\0');
  const ssize_t got = ::read(fd, key.data(), key.size());
  ::close(fd);
  if (got != static_cast<ssize_t>(kKeyBytes)) {
    throw SealingError("The token sealing key " + path + " is damaged (it must hold exactly 32 " +
                       "bytes); delete it to sign everybody out and start with a new key");
  }
  key.resize(kKeyBytes);
  return key;
}

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext new_context() {
  CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!context) throw SealingError("OpenSSL could not allocate a cipher context");
  return context;
}

const unsigned char* bytes(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

}  // namespace

TokenSealer::TokenSealer(const std::string& state_dir)
    : key_path_((std::filesystem::path(state_dir) / "oauth-sealing.key").string()) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) {
    throw SealingError("Cannot create the state directory " + state_dir + " for the token " +
                       "sealing key: " + error.message());
  }
  if (::access(key_path_.c_str(), F_OK) != 0) write_new_key(key_path_);
  key_ = read_key(key_path_);
}

TokenSealer::~TokenSealer() { OPENSSL_cleanse(key_.data(), key_.size()); }

std::string TokenSealer::seal(std::string_view plaintext, std::string_view associated_data) const {
  std::string out(1 + kNonceBytes + plaintext.size() + kTagBytes, '\0');
  out[0] = kVersion;
  auto* nonce = reinterpret_cast<unsigned char*>(out.data() + 1);
  auto* cipher = nonce + kNonceBytes;
  if (RAND_bytes(nonce, kNonceBytes) != 1) throw SealingError("OpenSSL's random generator failed");
  CipherContext context = new_context();
  int length = 0;
  bool ok = EVP_EncryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, bytes(key_), nonce) == 1 &&
            EVP_EncryptUpdate(context.get(), nullptr, &length, bytes(associated_data),
                              static_cast<int>(associated_data.size())) == 1 &&
            EVP_EncryptUpdate(context.get(), cipher, &length, bytes(plaintext),
                              static_cast<int>(plaintext.size())) == 1 &&
            EVP_EncryptFinal_ex(context.get(), cipher + length, &length) == 1 &&
            EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes,
                                cipher + plaintext.size()) == 1;
  if (!ok) throw SealingError("OpenSSL failed to seal a token with AES-256-GCM");
  return codec::base64url_encode(out);
}

std::string TokenSealer::open(std::string_view sealed, std::string_view associated_data) const {
  const auto raw = codec::base64url_decode(sealed);
  if (!raw || raw->size() < 1 + kNonceBytes + kTagBytes || (*raw)[0] != kVersion) {
    throw SealingError("A sealed token is damaged (not something this daemon sealed)");
  }
  const std::string_view body(*raw);
  const auto nonce = body.substr(1, kNonceBytes);
  const auto cipher = body.substr(1 + kNonceBytes, body.size() - 1 - kNonceBytes - kTagBytes);
  std::string tag(body.substr(body.size() - kTagBytes));
  std::string plain(cipher.size(), '\0');
  CipherContext context = new_context();
  int length = 0;
  const bool ok =
      EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, bytes(key_), bytes(nonce)) == 1 &&
      EVP_DecryptUpdate(context.get(), nullptr, &length, bytes(associated_data),
                        static_cast<int>(associated_data.size())) == 1 &&
      EVP_DecryptUpdate(context.get(), reinterpret_cast<unsigned char*>(plain.data()), &length,
                        bytes(cipher), static_cast<int>(cipher.size())) == 1 &&
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) == 1 &&
      EVP_DecryptFinal_ex(context.get(), reinterpret_cast<unsigned char*>(plain.data()) + length,
                          &length) == 1;
  if (!ok) {
    OPENSSL_cleanse(plain.data(), plain.size());
    throw SealingError("A sealed token does not open: it was altered, sealed with another key (" +
                       key_path_ + " replaced?) or belongs to another user; sign in again");
  }
  return plain;
}

}  // namespace kg::team::oauth
