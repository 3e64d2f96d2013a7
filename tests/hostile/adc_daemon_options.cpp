#include "adc_daemon_options.hpp"

#include <fstream>

#include "test_network.hpp"

namespace kg::test::egress {

DaemonFixtureOptions adc_daemon_options(const LoopbackGoogle& google, const std::string& adc_dir,
                                        const std::string& mode) {
  const std::string adc = adc_dir + "/application_default_credentials.json";
  std::ofstream(adc) << R"({"type": "authorized_user", "client_id": ")" << google.client_id
                     << R"(", "client_secret": ")" << google.client_secret
                     << R"(", "refresh_token": ")" << google.refresh_token << R"("})";
  DaemonFixtureOptions options;
  options.extra_plugin_dirs = {required_env("KG_CREDS_ADC_PLUGIN_DIR")};
  options.extra_sandbox_keys =
      "egress_upstream_ca_file = " +
      (sandbox::testing::TestNetwork::get().scratch() / "cert.pem").string() + "\n";
  options.extra_sections = "[credentials]\nplugin = creds-adc\n[creds-adc]\n" +
                           (mode.empty() ? std::string() : "mode = " + mode + "\n") +
                           "adc_file = " + adc + "\nproject = test-project\ntoken_url = " +
                           google.token_url() + "\ntokeninfo_url = " + google.tokeninfo_url() +
                           "\nuserinfo_url = " + google.userinfo_url() + "\n";
  return options;
}

}  // namespace kg::test::egress
