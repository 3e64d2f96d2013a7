// UserAllowlist: emails and domains, case-insensitive; unverified emails and an empty list
// keep everybody out.
#include <doctest/doctest.h>

#include "user_allowlist.hpp"

using kg::team::oauth::UserAllowlist;

TEST_CASE("the allowlist admits listed emails and domains only") {
  const UserAllowlist allowlist({"Alice@Example.com", " bob@other.org "}, {"@Team.Example", "corp.example"});
  CHECK(allowlist.refusal("alice@example.com", true).empty());
  CHECK(allowlist.refusal("ALICE@EXAMPLE.COM", std::nullopt).empty());
  CHECK(allowlist.refusal("bob@other.org", true).empty());
  CHECK(allowlist.refusal("carol@team.example", true).empty());
  CHECK(allowlist.refusal("dave@corp.example", true).empty());
  CHECK_FALSE(allowlist.refusal("mallory@example.com", true).empty());
  CHECK_FALSE(allowlist.refusal("carol@sub.team.example", true).empty());
  CHECK_FALSE(allowlist.refusal("carol@team.example.evil", true).empty());
  CHECK_FALSE(allowlist.refusal("team.example", true).empty());
  CHECK(allowlist.refusal("mallory@example.com", true).find("allowed_users") != std::string::npos);
}

TEST_CASE("an unverified or missing email is refused, and an empty allowlist refuses all") {
  const UserAllowlist allowlist({"alice@example.com"}, {"team.example"});
  CHECK(allowlist.refusal("alice@example.com", false).find("not verified") != std::string::npos);
  CHECK(allowlist.refusal("carol@team.example", false).find("not verified") != std::string::npos);
  CHECK(allowlist.refusal("", true).find("email") != std::string::npos);
  const UserAllowlist nobody({}, {" "});
  CHECK(nobody.refusal("alice@example.com", true).find("lets nobody in") != std::string::npos);
}
