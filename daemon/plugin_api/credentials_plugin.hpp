// The interface a credential plugin (creds-adc, creds-workload) implements: what identity a run
// gets and how it reaches the sandbox. Declared now so the loader can check the kind; the
// plugins themselves come later.
#pragma once

#include <optional>
#include <string>

namespace kg::plugin {

struct Identity {
  std::string mode;  // forwarded | access-token | workload | none
  std::optional<std::string> credential_type;
  std::optional<std::string> email;
  std::optional<std::string> project_id;
};

struct AccessToken {
  std::string token;
  std::string expiry_rfc3339;
};

class CredentialsPlugin {
 public:
  virtual ~CredentialsPlugin() = default;
  virtual Identity identity() = 0;
  // Throws std::runtime_error (with the reason) when no token can be minted.
  virtual AccessToken mint_access_token() = 0;
};

}  // namespace kg::plugin
