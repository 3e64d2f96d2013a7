// What the credential plugin tests share: a logger that keeps its lines, a fake HOME with
// gcloud's files, and ADC files of each type.
#pragma once

#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"
#include "adc_settings.hpp"
#include "host_services.hpp"
#include "loopback_google.hpp"
#include "../../support/test_loggers.hpp"

namespace kg::test {

inline void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// A HOME with no gcloud files yet; environment() points the plugin at it.
struct FakeHome {
  TempDir dir{"kg-creds-home-"};
  std::string gcloud() const { return dir / ".config/gcloud"; }
  std::string well_known_adc() const { return gcloud() + "/application_default_credentials.json"; }
  creds_adc::AdcEnvironment environment() const {
    creds_adc::AdcEnvironment e;
    e.home = dir.path();
    e.user = "tester";
    return e;
  }
};

inline std::string authorized_user_json(const LoopbackGoogle& google,
                                        const std::string& refresh_token) {
  return R"({"type": "authorized_user", "client_id": ")" + google.client_id +
         R"(", "client_secret": ")" + google.client_secret + R"(", "refresh_token": ")" +
         refresh_token + R"(", "quota_project_id": "quota-proj"})";
}

inline std::string service_account_json(const LoopbackGoogle& google, const std::string& private_pem) {
  std::string escaped;
  for (char c : private_pem) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
  return R"({"type": "service_account", "project_id": "sa-project", "private_key_id": "k1",
  "private_key": ")" + escaped + R"(", "client_email": ")" + google.service_account_email +
         R"(", "token_uri": ")" + google.token_url() + R"("})";
}

// Settings that send every request to the loopback peer.
inline creds_adc::AdcSettings loopback_settings(const LoopbackGoogle& google) {
  creds_adc::AdcSettings s;
  s.iam_credentials_url = google.base_url();
  s.tokeninfo_url = google.tokeninfo_url();
  s.userinfo_url = google.userinfo_url();
  s.timeout = std::chrono::milliseconds(5000);
  return s;
}

}  // namespace kg::test
