// The creds-adc plugin's configuration ([creds-adc] in the daemon's INI file, see
// creds_adc_plugin.cpp for every key) and the parts of the daemon's environment the Google
// libraries read. Read once when the plugin is created.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::creds_adc {

inline constexpr std::string_view kCloudPlatformScope =
    "https://www.googleapis.com/auth/cloud-platform";
inline constexpr std::string_view kGoogleTokenUrl = "https://oauth2.googleapis.com/token";
inline constexpr std::string_view kGoogleIamCredentialsUrl = "https://iamcredentials.googleapis.com";
inline constexpr std::string_view kGoogleTokenInfoUrl = "https://oauth2.googleapis.com/tokeninfo";
inline constexpr std::string_view kGoogleUserInfoUrl =
    "https://openidconnect.googleapis.com/v1/userinfo";

struct AdcSettings {
  std::string adc_file;            // empty: GOOGLE_APPLICATION_CREDENTIALS, then gcloud's file
  std::string token_url;           // empty: the file's token_uri, else kGoogleTokenUrl
  std::string iam_credentials_url; // empty: the file's impersonation URL, else Google's
  std::string tokeninfo_url{kGoogleTokenInfoUrl};
  std::string userinfo_url{kGoogleUserInfoUrl};
  // Service accounts to impersonate on top of the ADC, gcloud style: the last one is the
  // identity runs get, the ones before it are delegates. Empty: no impersonation.
  std::vector<std::string> impersonate;
  std::vector<std::string> scopes{std::string(kCloudPlatformScope)};
  std::string project;        // empty: GOOGLE_CLOUD_PROJECT, the file's, gcloud's
  std::string quota_project;  // empty: GOOGLE_CLOUD_QUOTA_PROJECT, the file's
  bool copy_adc_file = false;  // mode forwarded: the ADC file itself is copied into the sandbox
  // mode = sealed (default): the sandbox gets a placeholder, the egress proxy the token;
  // false: mode = access-token, the sandbox gets the token itself. Ignored with copy_adc_file.
  bool sealed = true;
  std::chrono::milliseconds timeout{10'000};
};

// What the Google libraries read from the environment (of the daemon, not of the sandbox).
struct AdcEnvironment {
  std::string google_application_credentials;
  std::string cloudsdk_config;
  std::string cloudsdk_active_config_name;
  std::string home;  // $HOME, else the account's home directory
  std::string user;  // the account the daemon runs as, for the hint to log in
  std::string google_cloud_project;
  std::string google_cloud_quota_project;

  static AdcEnvironment from_process();
};

// Reads [creds-adc] through `value` ("creds-adc.<key>" -> value). Throws std::runtime_error
// naming the key, the value and what is allowed.
AdcSettings read_adc_settings(
    const std::function<std::optional<std::string>(std::string_view key)>& value);

}  // namespace kg::creds_adc
