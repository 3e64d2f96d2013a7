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

const kg::plugin::PluginDescriptor kDescriptor = {
    kg::plugin::kAbiVersion,
    kg::plugin::PluginKind::credentials,
    "creds-adc",
    "0.1.0",
    "Application Default Credentials: short-lived access tokens minted on the host",
    nullptr,
    &create,
};

}  // namespace

KG_EXPORT_PLUGIN(kDescriptor)
