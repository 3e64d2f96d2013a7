#include "user_allowlist.hpp"

#include <algorithm>
#include <cctype>

namespace kg::team::oauth {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

UserAllowlist::UserAllowlist(const std::vector<std::string>& users,
                             const std::vector<std::string>& domains) {
  for (const auto& user : users) {
    if (const std::string entry = lowercase(trimmed(user)); !entry.empty()) users_.push_back(entry);
  }
  for (const auto& domain : domains) {
    std::string entry = lowercase(trimmed(domain));
    if (!entry.empty() && entry.front() == '@') entry.erase(0, 1);
    if (!entry.empty()) domains_.push_back(entry);
  }
}

std::string UserAllowlist::refusal(const std::string& email,
                                   std::optional<bool> email_verified) const {
  if (users_.empty() && domains_.empty()) {
    return "This server lets nobody in yet: its administrator has to list users or domains in "
           "[oauth] allowed_users / allowed_domains.";
  }
  if (email.empty()) {
    return "Your identity provider did not tell this server your email address, so it cannot "
           "check that you are allowed in; make sure the sign-in asks for the email scope.";
  }
  if (email_verified.has_value() && !*email_verified) {
    // At sign-in the ID token must say email_verified: true (absent counts as false), or anyone
    // who can claim an address at a lax provider would pass allowed_domains.
    return "Your email address " + email + " is not verified at your identity provider (its ID "
           "token has no email_verified: true); verify it there and sign in again.";
  }
  const std::string address = lowercase(email);
  if (std::find(users_.begin(), users_.end(), address) != users_.end()) return "";
  const auto at = address.rfind('@');
  if (at != std::string::npos &&
      std::find(domains_.begin(), domains_.end(), address.substr(at + 1)) != domains_.end()) {
    return "";
  }
  return email + " is not allowed to use this server; ask its administrator to add you to "
         "[oauth] allowed_users or your domain to allowed_domains.";
}

}  // namespace kg::team::oauth
