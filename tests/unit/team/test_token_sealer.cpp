// TokenSealer: AES-256-GCM sealing of upstream tokens, the key file it creates, and that any
// change to a sealed value, its associated data or the key is detected.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "../../support/temp_dir.hpp"
#include "base64url.hpp"
#include "oauth_secrets.hpp"
#include "token_sealer.hpp"

using kg::team::oauth::SealingError;
using kg::team::oauth::TokenSealer;

TEST_CASE("sealing round-trips and the key file is created private, once") {
  kg::test::TempDir dir;
  const std::string state = dir / "state";
  std::string sealed;
  {
    TokenSealer sealer(state);
    const std::string key = state + "/oauth-sealing.key";
    CHECK(sealer.key_path() == key);
    struct stat info{};
    REQUIRE(::stat(key.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
    CHECK(info.st_size == 32);
    sealed = sealer.seal("ya29.upstream-token", "user#1 refresh");
    CHECK(sealed.find("ya29") == std::string::npos);
    CHECK(sealer.open(sealed, "user#1 refresh") == "ya29.upstream-token");
    // A fresh nonce each time: equal plaintexts do not seal alike.
    CHECK(sealer.seal("ya29.upstream-token", "user#1 refresh") != sealed);
    CHECK(sealer.open(sealer.seal("", "x"), "x").empty());
  }
  // A new sealer (a daemon restart) reads the same key.
  TokenSealer again(state);
  CHECK(again.open(sealed, "user#1 refresh") == "ya29.upstream-token");
}

TEST_CASE("a tampered, misplaced or foreign sealed token does not open") {
  kg::test::TempDir dir;
  TokenSealer sealer(dir / "a");
  const std::string sealed = sealer.seal("secret refresh token", "user#1 refresh");
  const std::string raw = *kg::codec::base64url_decode(sealed);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    std::string flipped = raw;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    CAPTURE(i);
    CHECK_THROWS_AS(sealer.open(kg::codec::base64url_encode(flipped), "user#1 refresh"),
                    SealingError);
  }
  CHECK_THROWS_AS(sealer.open(sealed.substr(0, sealed.size() - 2), "user#1 refresh"), SealingError);
  CHECK_THROWS_WITH(sealer.open(sealed, "user#2 refresh"),
                    doctest::Contains("belongs to another user"));
  CHECK_THROWS_AS(sealer.open(sealed, "user#1 access"), SealingError);
  CHECK_THROWS_AS(sealer.open("not base64 !", "user#1 refresh"), SealingError);
  TokenSealer other(dir / "b");
  CHECK_THROWS_AS(other.open(sealed, "user#1 refresh"), SealingError);
}

TEST_CASE("a key file others can read, or of the wrong size, is refused with what to do") {
  kg::test::TempDir dir;
  const std::string state = dir / "state";
  { TokenSealer first(state); }
  const std::string key = state + "/oauth-sealing.key";
  ::chmod(key.c_str(), 0644);
  CHECK_THROWS_WITH(TokenSealer{state}, doctest::Contains("chmod 600"));
  std::filesystem::remove(key);
  { std::ofstream(key) << "short"; }
  ::chmod(key.c_str(), 0600);
  CHECK_THROWS_WITH(TokenSealer{state}, doctest::Contains("exactly 32"));
}
