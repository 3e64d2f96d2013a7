// creds-workload's CredentialsPlugin: the identity of the daemon itself, from the metadata
// server it runs under (GKE Workload Identity, a GCE VM): tokens and email come from
// http://$GCE_METADATA_HOST/computeMetadata/v1/instance/service-accounts/<account>/, the
// project from …/project/project-id. Tokens are cached until five minutes before they expire,
// the email and project for the daemon's life once known.
//
// Created by the plugin's entry point; thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "credentials_plugin.hpp"
#include "host_services.hpp"
#include "oauth_http_client.hpp"
#include "token_cache.hpp"

namespace kg::creds_workload {

struct WorkloadSettings {
  std::string metadata_host = "169.254.169.254";  // host[:port]; GCE_METADATA_HOST wins
  std::string service_account = "default";
  std::vector<std::string> scopes;  // empty: the account's own scopes
  std::chrono::milliseconds timeout{3'000};
  // mode = sealed (default): the sandbox gets a placeholder, the egress proxy the token;
  // false: mode = access-token, the sandbox gets the token (reported as mode workload).
  bool sealed = true;
};

// [creds-workload] keys through `value`, then GCE_METADATA_HOST from `environment`. Throws
// std::runtime_error naming the key and what is allowed.
WorkloadSettings read_workload_settings(
    const std::function<std::optional<std::string>(std::string_view key)>& value,
    const std::function<std::optional<std::string>(const char* name)>& environment);

class WorkloadCredentials final : public plugin::CredentialsPlugin {
 public:
  WorkloadCredentials(WorkloadSettings settings, plugin::Logger& logger,
                      google_oauth::TokenCache::Clock clock = [] {
                        return std::chrono::system_clock::now();
                      });

  plugin::Identity identity() override;
  std::optional<plugin::RunCredentials> credentials_for_run(const plugin::RunContext& run) override;

 private:
  std::string url(std::string_view path) const;
  // GET a metadata path as text; throws plugin::CredentialsError.
  std::string text(std::string_view path, std::string_view what) const;
  google_oauth::MintedToken token();
  std::string email();
  std::string project();  // empty when the server knows none

  WorkloadSettings settings_;
  plugin::Logger& logger_;
  google_oauth::OAuthHttpClient http_;
  google_oauth::TokenCache tokens_;
  std::mutex mutex_;
  std::string email_, project_;
  bool project_known_ = false;
};

}  // namespace kg::creds_workload
