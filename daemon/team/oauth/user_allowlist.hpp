// Who may sign in: the [oauth] allowed_users (emails) and allowed_domains, matched
// case-insensitively against the ID token's email, which must be verified when the token says
// whether it is (email_verified). Both lists empty: nobody (an open daemon must be asked for
// explicitly with auth = none on loopback, never by forgetting a setting).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kg::team::oauth {

class UserAllowlist {
 public:
  UserAllowlist(const std::vector<std::string>& users, const std::vector<std::string>& domains);

  // "" when the user may sign in; else why not, in words for the refused user's browser.
  std::string refusal(const std::string& email, std::optional<bool> email_verified) const;

 private:
  std::vector<std::string> users_, domains_;  // lowercased; domains without a leading '@'
};

}  // namespace kg::team::oauth
