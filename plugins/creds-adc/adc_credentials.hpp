// creds-adc's CredentialsPlugin: the user's Application Default Credentials, turned into
// short-lived access tokens on the host. The ADC file is found and read for every request (a
// new login takes effect at once); tokens are cached per identity (the file's content, the
// impersonation chain and the scopes) until five minutes before they expire; the identity's
// email is looked up once per identity (tokeninfo, then userinfo) and cached.
//
// Created by the plugin's entry point; identity() and credentials_for_run() may be called from
// any number of threads at once.
#pragma once

#include <map>
#include <mutex>

#include "adc_file.hpp"
#include "adc_grants.hpp"
#include "adc_settings.hpp"
#include "credentials_plugin.hpp"
#include "host_services.hpp"
#include "oauth_http_client.hpp"
#include "token_cache.hpp"

namespace kg::creds_adc {

// Where the ADC file is copied in mode forwarded (under the sandbox's /app).
inline constexpr std::string_view kForwardedAdcPath =
    ".kode-gopher/credentials/application_default_credentials.json";

class AdcCredentials final : public plugin::CredentialsPlugin {
 public:
  AdcCredentials(AdcSettings settings, AdcEnvironment environment, plugin::Logger& logger,
                 google_oauth::TokenCache::Clock clock = [] {
                   return std::chrono::system_clock::now();
                 });

  plugin::Identity identity() override;
  std::optional<plugin::RunCredentials> credentials_for_run(const plugin::RunContext& run) override;

 private:
  struct Found {
    AdcFile file;
    std::string key;              // the identity, for the caches
    std::string credential_type;  // of the identity runs get (impersonation included)
    std::string known_email;      // when the file or config names it
  };
  Found resolve(const AdcLocation& location) const;
  google_oauth::MintedToken mint(const Found& found, google_oauth::SystemTime now) const;
  google_oauth::MintedToken source_token(const SourceCredentials& source,
                                         const std::vector<std::string>& scopes,
                                         google_oauth::SystemTime now) const;
  std::string token_url(const std::string& file_token_uri) const;
  std::string email_of(const Found& found, const std::string& token);
  std::string project(const AdcFile& file) const;
  std::string quota_project(const AdcFile& file) const;
  std::string missing_problem(const AdcLocation& location) const;

  AdcSettings settings_;
  AdcEnvironment environment_;
  plugin::Logger& logger_;
  google_oauth::OAuthHttpClient http_;
  google_oauth::TokenCache tokens_;
  std::mutex emails_mutex_;
  std::map<std::string, std::string> emails_;  // identity key -> email
};

}  // namespace kg::creds_adc
