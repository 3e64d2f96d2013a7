// A valid credentials plugin with a fixed identity and token.
#include "credentials_plugin.hpp"
#include "host_services.hpp"
#include "plugin_abi.hpp"

namespace {

class FixedCredentials final : public kg::plugin::CredentialsPlugin {
 public:
  kg::plugin::Identity identity() override {
    return kg::plugin::Identity{"access-token", "authorized_user", "mock@example.com",
                                "mock-project"};
  }
  kg::plugin::AccessToken mint_access_token() override {
    return kg::plugin::AccessToken{"mock-token", "2026-12-02T10:00:00Z"};
  }
};

kg::plugin::CredentialsPlugin* create(kg::plugin::HostServices&) { return new FixedCredentials; }

const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::credentials, "good-credentials", "2.0.0",
    "Mock credentials with a fixed token", nullptr, &create};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
