// creds-adc: programs run as the user's Application Default Credentials, and a sandbox gets
// only a short-lived access token minted on the host (served by its metadata emulator).
//
// Config ([creds-adc] in the daemon's INI file; every key optional):
//   adc_file = /home/me/.config/gcloud/application_default_credentials.json
//       the ADC file; default: GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file
//       ($CLOUDSDK_CONFIG or ~/.config/gcloud of the daemon's user). Set it when the daemon
//       runs as root or under another HOME than the user who logged in.
//   impersonate_service_account = runner@my-project.iam.gserviceaccount.com
//       runs get this service account's tokens (IAM Credentials generateAccessToken) on top of
//       the ADC; a comma-separated chain names delegates first, the target last. Default: none.
//   scopes = https://www.googleapis.com/auth/cloud-platform   (comma- or space-separated)
//   project = my-project          default: GOOGLE_CLOUD_PROJECT, the file's, gcloud's config
//   quota_project = my-project    default: GOOGLE_CLOUD_QUOTA_PROJECT, the file's
//   mode = sealed                 sealed: the sandbox gets a worthless placeholder and the daemon's
//                                 egress proxy adds the real token on requests to Google API
//                                 hosts; access-token: the sandbox gets the token itself
//   copy_adc_file = false         true: also copy the ADC file itself into the sandbox (mode
//                                 forwarded; its refresh token or key is then readable there)
//   token_url = https://oauth2.googleapis.com/token        default: the file's token_uri
//   iam_credentials_url = https://iamcredentials.googleapis.com
//   tokeninfo_url = https://oauth2.googleapis.com/tokeninfo
//   userinfo_url = https://openidconnect.googleapis.com/v1/userinfo
//   timeout_ms = 10000            per request to those endpoints, 100..120000
// Example:
//   [credentials]
//   plugin = creds-adc
//   [creds-adc]
//   impersonate_service_account = runner@my-project.iam.gserviceaccount.com
#include "adc_credentials.hpp"
#include "plugin_abi.hpp"

namespace {

kg::plugin::CredentialsPlugin* create(kg::plugin::HostServices& host) {
  auto settings = kg::creds_adc::read_adc_settings(
      [&host](std::string_view key) { return host.config_value(key); });
  return new kg::creds_adc::AdcCredentials(std::move(settings),
                                           kg::creds_adc::AdcEnvironment::from_process(),
                                           host.logger());
}

using kg::plugin::ConfigKeyType;
constexpr const char* kModes[] = {"sealed", "access-token"};
constexpr kg::plugin::PluginConfigKey kConfigKeys[] = {
    {.name = "adc_file", .type = ConfigKeyType::absolute_path,
     .default_text = "GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file",
     .help = "The ADC file; set it when the daemon runs as root or under another HOME than the "
             "user who logged in."},
    {.name = "impersonate_service_account", .type = ConfigKeyType::text, .default_text = "none",
     .help = "Runs get this service account's tokens on top of the ADC; a comma-separated chain "
             "names delegates first, the target last."},
    {.name = "scopes", .type = ConfigKeyType::text,
     .default_text = "https://www.googleapis.com/auth/cloud-platform",
     .help = "OAuth scopes of the tokens, separated by commas or spaces."},
    {.name = "project", .type = ConfigKeyType::text,
     .default_text = "GOOGLE_CLOUD_PROJECT, the file's, gcloud's config",
     .help = "The project programs see."},
    {.name = "quota_project", .type = ConfigKeyType::text,
     .default_text = "GOOGLE_CLOUD_QUOTA_PROJECT, the file's",
     .help = "The project billed for quota."},
    {.name = "mode", .type = ConfigKeyType::choice, .default_text = "sealed",
     .help = "sealed: programs hold only a worthless placeholder token and the egress proxy "
             "puts the real one on their requests to Google API hosts (needs [sandbox] network "
             "= allowlist, docs/credentials.md); access-token: the sandbox holds the real "
             "short-lived token. copy_adc_file = true gives mode forwarded instead.",
     .choices = kModes, .choice_count = 2},
    {.name = "copy_adc_file", .type = ConfigKeyType::boolean, .default_text = "false",
     .help = "true: also copy the ADC file itself into the sandbox (its refresh token or key is "
             "then readable there)."},
    {.name = "token_url", .type = ConfigKeyType::text, .default_text = "the file's token_uri",
     .help = "The OAuth token endpoint."},
    {.name = "iam_credentials_url", .type = ConfigKeyType::text,
     .default_text = "https://iamcredentials.googleapis.com",
     .help = "The IAM Credentials API, for impersonation."},
    {.name = "tokeninfo_url", .type = ConfigKeyType::text,
     .default_text = "https://oauth2.googleapis.com/tokeninfo",
     .help = "Where the identity behind a token is looked up."},
    {.name = "userinfo_url", .type = ConfigKeyType::text,
     .default_text = "https://openidconnect.googleapis.com/v1/userinfo",
     .help = "Where a user's email is looked up."},
    {.name = "timeout_ms", .type = ConfigKeyType::integer, .default_text = "10000",
     .help = "Timeout of each request to those endpoints.", .min = 100, .max = 120000},
};

const kg::plugin::PluginDescriptor kDescriptor = {
    .abi_version = kg::plugin::kAbiVersion,
    .kind = kg::plugin::PluginKind::credentials,
    .name = "creds-adc",
    .version = "0.1.0",
    .description = "Application Default Credentials: short-lived access tokens minted on the host",
    .create_runtime = nullptr,
    .create_credentials = &create,
    .config_keys = kConfigKeys,
    .config_key_count = sizeof kConfigKeys / sizeof kConfigKeys[0],
};

}  // namespace

KG_EXPORT_PLUGIN(kDescriptor)
