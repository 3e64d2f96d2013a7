#include "workload_credentials.hpp"

#include "form_encoding.hpp"
#include "utc_time.hpp"
#include "word_list.hpp"

namespace kg::creds_workload {
namespace {

using google_oauth::HttpCall;
using plugin::CredentialsError;

constexpr std::string_view kLoginHint =
    "creds-workload needs a metadata server serving the daemon's identity (GKE Workload "
    "Identity, a GCE VM); set GCE_METADATA_HOST (or [creds-workload] metadata_host) to reach "
    "another one, or use [credentials] plugin = creds-adc on a workstation";

}  // namespace

WorkloadSettings read_workload_settings(
    const std::function<std::optional<std::string>(std::string_view key)>& value,
    const std::function<std::optional<std::string>(const char* name)>& environment) {
  WorkloadSettings s;
  if (auto v = value("creds-workload.metadata_host"); v && !v->empty()) s.metadata_host = *v;
  if (auto v = environment("GCE_METADATA_HOST"); v && !v->empty()) s.metadata_host = *v;
  if (s.metadata_host.find('/') != std::string::npos) {
    throw std::runtime_error("the metadata host must be host[:port] without a scheme or path, got \"" +
                             s.metadata_host + "\" (from GCE_METADATA_HOST or [creds-workload] "
                             "metadata_host)");
  }
  if (auto v = value("creds-workload.service_account"); v && !v->empty()) {
    if (v->find('/') != std::string::npos || v->find('?') != std::string::npos) {
      throw std::runtime_error("[creds-workload] service_account must be \"default\" or an "
                               "email, got \"" + *v + "\"");
    }
    s.service_account = *v;
  }
  if (auto v = value("creds-workload.scopes")) s.scopes = google_oauth::split_words(*v);
  if (auto v = value("creds-workload.mode")) {
    if (*v != "sealed" && *v != "access-token") {
      throw std::runtime_error("[creds-workload] mode must be sealed or access-token, got \"" +
                               *v + "\"");
    }
    s.sealed = *v == "sealed";
  }
  if (auto v = value("creds-workload.timeout_ms")) {
    char* end = nullptr;
    const long ms = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || ms < 100 || ms > 120000) {
      throw std::runtime_error("[creds-workload] timeout_ms must be an integer from 100 to "
                               "120000, got \"" + *v + "\"");
    }
    s.timeout = std::chrono::milliseconds(ms);
  }
  return s;
}

WorkloadCredentials::WorkloadCredentials(WorkloadSettings settings, plugin::Logger& logger,
                                         google_oauth::TokenCache::Clock clock)
    : settings_(std::move(settings)), logger_(logger), http_(settings_.timeout), tokens_(std::move(clock)) {}

std::string WorkloadCredentials::url(std::string_view path) const {
  return "http://" + settings_.metadata_host + "/computeMetadata/v1/" + std::string(path);
}

std::string WorkloadCredentials::text(std::string_view path, std::string_view what) const {
  HttpCall call;
  call.url = url(path);
  call.what = std::string(what);
  call.headers = {{"Metadata-Flavor", "Google"}};
  const auto answer = http_.send(call);
  if (answer.status != 200) throw CredentialsError(google_oauth::refusal_message(call, answer));
  std::string body = answer.body;
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  return body;
}

google_oauth::MintedToken WorkloadCredentials::token() {
  return tokens_.get(settings_.service_account, [&](google_oauth::SystemTime now) {
    HttpCall call;
    call.url = url("instance/service-accounts/" + settings_.service_account + "/token");
    if (!settings_.scopes.empty()) {
      call.url += "?scopes=" + net::percent_encode(google_oauth::join_words(settings_.scopes, ","));
    }
    call.what = "Getting the workload's access token from the metadata server";
    call.headers = {{"Metadata-Flavor", "Google"}};
    return google_oauth::read_oauth_token_answer(call, http_.send(call), now);
  });
}

std::string WorkloadCredentials::email() {
  {
    std::lock_guard lock(mutex_);
    if (!email_.empty()) return email_;
  }
  auto found = text("instance/service-accounts/" + settings_.service_account + "/email",
                    "Reading the workload's email from the metadata server");
  std::lock_guard lock(mutex_);
  email_ = found;
  return email_;
}

std::string WorkloadCredentials::project() {
  {
    std::lock_guard lock(mutex_);
    if (project_known_) return project_;
  }
  std::string found;
  try {
    found = text("project/project-id", "Reading the project from the metadata server");
  } catch (const CredentialsError& e) {
    logger_.log(plugin::LogLevel::warn, std::string("creds-workload: ") + e.what());
    return {};
  }
  std::lock_guard lock(mutex_);
  project_ = found;
  project_known_ = true;
  return project_;
}

plugin::Identity WorkloadCredentials::identity() {
  plugin::Identity id;
  id.mode = settings_.sealed ? plugin::CredentialMode::sealed : plugin::CredentialMode::workload;
  id.credential_type = "gce_metadata";
  id.source = "metadata server " + settings_.metadata_host;
  try {
    const auto minted = token();
    id.token_expiry_rfc3339 = utc::to_rfc3339(minted.expiry);
    id.email = email();
    id.project_id = project();
  } catch (const std::exception& e) {
    id.problem = e.what();
    id.login_hint = std::string(kLoginHint);
  }
  return id;
}

std::optional<plugin::RunCredentials> WorkloadCredentials::credentials_for_run(
    const plugin::RunContext& run) {
  plugin::RunCredentials out;
  google_oauth::MintedToken minted;
  try {
    minted = token();
    out.token.email = email();
  } catch (const CredentialsError& e) {
    throw CredentialsError(std::string(e.what()) + "; " + std::string(kLoginHint));
  }
  out.mode = settings_.sealed ? plugin::CredentialMode::sealed : plugin::CredentialMode::workload;
  out.credential_type = "gce_metadata";
  out.token.access_token = minted.value;
  out.token.expiry_rfc3339 = utc::to_rfc3339(minted.expiry);
  out.token.project = project();
  out.scopes = google_oauth::split_words(minted.scope);
  if (out.scopes.empty()) out.scopes = settings_.scopes;
  out.identity = out.token.email;
  logger_.log(plugin::LogLevel::debug, "creds-workload: a token for " + out.identity + " (until " +
                                           out.token.expiry_rfc3339 + ") for session " +
                                           run.session_id + " call " + std::to_string(run.call_id));
  return out;
}

}  // namespace kg::creds_workload
