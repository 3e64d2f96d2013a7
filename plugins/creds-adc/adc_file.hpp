// Finding and reading Application Default Credentials the way the Google libraries do:
// [creds-adc] adc_file when set, else GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known
// file ($CLOUDSDK_CONFIG or ~/.config/gcloud, then application_default_credentials.json).
// Read again for every call, so a `gcloud auth application-default login` takes effect
// without restarting the daemon.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "adc_settings.hpp"

namespace kg::creds_adc {

struct AuthorizedUser {
  std::string client_id, client_secret, refresh_token, token_uri;
};

struct ServiceAccountKey {
  std::string client_email, private_key, private_key_id, token_uri;
};

using SourceCredentials = std::variant<AuthorizedUser, ServiceAccountKey>;

struct ImpersonatedServiceAccount {
  std::string target_email;       // from the URL
  std::string impersonation_url;  // ...:generateAccessToken
  std::vector<std::string> delegates;
  SourceCredentials source;
};

struct AdcFile {
  std::string path;
  std::string how_found;  // "GOOGLE_APPLICATION_CREDENTIALS", "[creds-adc] adc_file", ...
  std::string text;       // the file itself (copied only where config opts in)
  std::string type;       // authorized_user | service_account | impersonated_service_account
  std::string project_id;
  std::string quota_project_id;
  std::variant<AuthorizedUser, ServiceAccountKey, ImpersonatedServiceAccount> credentials;
};

// Where the ADC would be and how it was chosen; `exists` false when that file is not there.
struct AdcLocation {
  std::string path;
  std::string how_found;
  bool exists = false;
};

AdcLocation locate_adc(const AdcSettings& settings, const AdcEnvironment& environment);

// How to log in, for the daemon's user (names the command, the variable and the config key).
std::string login_hint(const AdcEnvironment& environment);

// Reads and checks the file. Throws plugin::CredentialsError naming the file and what is wrong
// with it (not JSON, with line and column; an unsupported type; a missing field), never its
// secrets.
AdcFile read_adc_file(const AdcLocation& location);

// gcloud's active configuration's [core] project, or empty.
std::string gcloud_project(const AdcEnvironment& environment);

}  // namespace kg::creds_adc
