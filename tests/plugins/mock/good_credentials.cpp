// A valid credentials plugin with a fixed identity and token.
#include "credentials_plugin.hpp"
#include "host_services.hpp"
#include "plugin_abi.hpp"

namespace {

class FixedCredentials final : public kg::plugin::CredentialsPlugin {
 public:
  kg::plugin::Identity identity() override {
    kg::plugin::Identity id;
    id.mode = kg::plugin::CredentialMode::access_token;
    id.credential_type = "authorized_user";
    id.email = "mock@example.com";
    id.project_id = "mock-project";
    return id;
  }
  std::optional<kg::plugin::RunCredentials> credentials_for_run(
      const kg::plugin::RunContext& run) override {
    kg::plugin::RunCredentials out;
    out.token = {"mock-token-" + run.session_id, "2026-12-02T10:00:00Z", "mock@example.com",
                 "mock-project", ""};
    out.identity = "mock@example.com";
    return out;
  }
};

kg::plugin::CredentialsPlugin* create(kg::plugin::HostServices&) { return new FixedCredentials; }

const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::credentials, "good-credentials", "2.0.0",
    "Mock credentials with a fixed token", nullptr, &create};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
