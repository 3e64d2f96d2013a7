#include "adc_settings.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "word_list.hpp"

namespace kg::creds_adc {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

void require_url(const std::string& key, const std::string& value) {
  if (!value.starts_with("https://") && !value.starts_with("http://")) {
    throw std::runtime_error("[creds-adc] " + key + " must be an http:// or https:// URL, got \"" +
                             value + "\"");
  }
}

}  // namespace

AdcEnvironment AdcEnvironment::from_process() {
  AdcEnvironment e;
  e.google_application_credentials = env("GOOGLE_APPLICATION_CREDENTIALS");
  e.cloudsdk_config = env("CLOUDSDK_CONFIG");
  e.cloudsdk_active_config_name = env("CLOUDSDK_ACTIVE_CONFIG_NAME");
  e.google_cloud_project = env("GOOGLE_CLOUD_PROJECT");
  e.google_cloud_quota_project = env("GOOGLE_CLOUD_QUOTA_PROJECT");
  e.home = env("HOME");
  passwd entry{};
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
    e.user = found->pw_name;
    if (e.home.empty()) e.home = found->pw_dir;
  } else {
    e.user = "uid " + std::to_string(geteuid());
  }
  return e;
}

AdcSettings read_adc_settings(
    const std::function<std::optional<std::string>(std::string_view key)>& value) {
  AdcSettings s;
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto found = value(std::string("creds-adc.") + key);
    if (!found) return std::nullopt;
    return trimmed(*found);
  };
  if (auto v = text("adc_file")) {
    if (!v->empty() && !v->starts_with("/")) {
      throw std::runtime_error("[creds-adc] adc_file must be an absolute path, got \"" + *v + "\"");
    }
    s.adc_file = *v;
  }
  const std::pair<const char*, std::string*> urls[] = {
      {"token_url", &s.token_url},
      {"iam_credentials_url", &s.iam_credentials_url},
      {"tokeninfo_url", &s.tokeninfo_url},
      {"userinfo_url", &s.userinfo_url}};
  for (const auto& [key, field] : urls) {
    if (auto v = text(key); v && !v->empty()) {
      require_url(key, *v);
      while (v->ends_with('/')) v->pop_back();
      *field = *v;
    }
  }
  if (auto v = text("impersonate_service_account")) {
    s.impersonate = google_oauth::split_words(*v);
    for (const auto& email : s.impersonate) {
      if (email.find('@') == std::string::npos) {
        throw std::runtime_error("[creds-adc] impersonate_service_account must list service "
                                 "account emails (comma-separated), got \"" + email + "\"");
      }
    }
  }
  if (auto v = text("scopes")) {
    s.scopes = google_oauth::split_words(*v);
    if (s.scopes.empty()) {
      throw std::runtime_error("[creds-adc] scopes must name at least one OAuth scope, e.g. " +
                               std::string(kCloudPlatformScope));
    }
  }
  if (auto v = text("project")) s.project = *v;
  if (auto v = text("quota_project")) s.quota_project = *v;
  if (auto v = text("copy_adc_file")) {
    if (*v != "true" && *v != "false") {
      throw std::runtime_error("[creds-adc] copy_adc_file must be true or false, got \"" + *v + "\"");
    }
    s.copy_adc_file = *v == "true";
  }
  if (auto v = text("mode")) {
    if (*v != "sealed" && *v != "access-token") {
      throw std::runtime_error("[creds-adc] mode must be sealed or access-token, got \"" + *v +
                               "\" (copy_adc_file = true gives mode forwarded)");
    }
    if (*v == "sealed" && s.copy_adc_file) {
      throw std::runtime_error("[creds-adc] mode = sealed cannot be combined with copy_adc_file "
                               "= true, which hands the ADC file itself to the sandbox; drop one");
    }
    s.sealed = *v == "sealed";
  }
  if (auto v = text("timeout_ms")) {
    char* end = nullptr;
    const long ms = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || ms < 100 || ms > 120000) {
      throw std::runtime_error("[creds-adc] timeout_ms must be an integer from 100 to 120000, got \"" +
                               *v + "\"");
    }
    s.timeout = std::chrono::milliseconds(ms);
  }
  return s;
}

}  // namespace kg::creds_adc
