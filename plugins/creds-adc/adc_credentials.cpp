#include "adc_credentials.hpp"

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>

#include "form_encoding.hpp"
#include "json_members.hpp"
#include "utc_time.hpp"
#include "word_list.hpp"

namespace kg::creds_adc {
namespace {

using google_oauth::HttpCall;
using google_oauth::MintedToken;
using google_oauth::SystemTime;
using plugin::CredentialsError;

const std::vector<std::string> kSourceScopes{std::string(kCloudPlatformScope)};

}  // namespace

AdcCredentials::AdcCredentials(AdcSettings settings, AdcEnvironment environment,
                               plugin::Logger& logger, google_oauth::TokenCache::Clock clock)
    : settings_(std::move(settings)),
      environment_(std::move(environment)),
      logger_(logger),
      http_(settings_.timeout),
      tokens_(std::move(clock)) {}

std::string AdcCredentials::token_url(const std::string& file_token_uri) const {
  if (!settings_.token_url.empty()) return settings_.token_url;
  if (!file_token_uri.empty()) return file_token_uri;
  return std::string(kGoogleTokenUrl);
}

std::string AdcCredentials::project(const AdcFile& file) const {
  if (!settings_.project.empty()) return settings_.project;
  if (!environment_.google_cloud_project.empty()) return environment_.google_cloud_project;
  if (!file.project_id.empty()) return file.project_id;
  return gcloud_project(environment_);
}

std::string AdcCredentials::quota_project(const AdcFile& file) const {
  if (!settings_.quota_project.empty()) return settings_.quota_project;
  if (!environment_.google_cloud_quota_project.empty()) return environment_.google_cloud_quota_project;
  return file.quota_project_id;
}

std::string AdcCredentials::missing_problem(const AdcLocation& location) const {
  if (location.how_found.starts_with("gcloud")) {
    return "No Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS is not set and " +
           location.path + " (" + location.how_found + ") does not exist";
  }
  return location.how_found + " names " + location.path + ", which does not exist";
}

AdcCredentials::Found AdcCredentials::resolve(const AdcLocation& location) const {
  Found found{read_adc_file(location), {}, {}, {}};
  const auto& file = found.file;
  found.credential_type = file.type;
  if (const auto* key = std::get_if<ServiceAccountKey>(&file.credentials)) {
    found.known_email = key->client_email;
  } else if (const auto* imp = std::get_if<ImpersonatedServiceAccount>(&file.credentials)) {
    found.known_email = imp->target_email;
  }
  if (!settings_.impersonate.empty()) {
    found.credential_type = "impersonated_service_account";
    found.known_email = settings_.impersonate.back();
  }
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(file.text);
  std::string key = Poco::DigestEngine::digestToHex(sha.digest());
  for (const auto& email : settings_.impersonate) key += "|" + email;
  key += "|";
  for (const auto& scope : settings_.scopes) key += " " + scope;
  found.key = std::move(key);
  return found;
}

MintedToken AdcCredentials::source_token(const SourceCredentials& source,
                                         const std::vector<std::string>& scopes,
                                         SystemTime now) const {
  if (const auto* user = std::get_if<AuthorizedUser>(&source)) {
    return refresh_user_token(http_, token_url(user->token_uri), *user, now);
  }
  const auto& key = std::get<ServiceAccountKey>(source);
  return service_account_token(http_, token_url(key.token_uri), key, scopes, now);
}

MintedToken AdcCredentials::mint(const Found& found, SystemTime now) const {
  const bool impersonate_more = !settings_.impersonate.empty();
  MintedToken token;
  if (const auto* imp = std::get_if<ImpersonatedServiceAccount>(&found.file.credentials)) {
    std::string url = imp->impersonation_url;
    if (!settings_.iam_credentials_url.empty()) {
      const auto v1 = url.find("/v1/");
      if (v1 != std::string::npos) url = settings_.iam_credentials_url + url.substr(v1);
    }
    const auto source = source_token(imp->source, kSourceScopes, now);
    token = impersonated_token(http_, url, source.value, imp->delegates,
                               impersonate_more ? kSourceScopes : settings_.scopes, now);
  } else if (const auto* user = std::get_if<AuthorizedUser>(&found.file.credentials)) {
    token = source_token(*user, settings_.scopes, now);
  } else {
    token = source_token(std::get<ServiceAccountKey>(found.file.credentials),
                         impersonate_more ? kSourceScopes : settings_.scopes, now);
  }
  if (impersonate_more) {
    const std::string base = settings_.iam_credentials_url.empty()
                                 ? std::string(kGoogleIamCredentialsUrl)
                                 : settings_.iam_credentials_url;
    const std::vector<std::string> delegates(settings_.impersonate.begin(),
                                             settings_.impersonate.end() - 1);
    token = impersonated_token(http_, generate_access_token_url(base, settings_.impersonate.back()),
                               token.value, delegates, settings_.scopes, now);
  }
  return token;
}

std::string AdcCredentials::email_of(const Found& found, const std::string& token) {
  if (!found.known_email.empty()) return found.known_email;
  {
    std::lock_guard lock(emails_mutex_);
    if (auto it = emails_.find(found.key); it != emails_.end()) return it->second;
  }
  std::string email;
  std::string why;
  HttpCall tokeninfo;
  tokeninfo.url = settings_.tokeninfo_url + "?access_token=" + net::percent_encode(token);
  tokeninfo.what = "Looking up the user's email (tokeninfo)";
  HttpCall userinfo;
  userinfo.url = settings_.userinfo_url;
  userinfo.headers = {{"Authorization", "Bearer " + token}};
  userinfo.what = "Looking up the user's email (userinfo)";
  for (const auto* call : {&tokeninfo, &userinfo}) {
    try {
      const auto answer = http_.send(*call);
      if (answer.status != 200) {
        why += (why.empty() ? "" : "; ") + google_oauth::refusal_message(*call, answer);
        continue;
      }
      const auto doc = google_oauth::parse_answer_object(*call, answer);
      email = json::optional_string_member(doc, "email").value_or("");
      if (!email.empty()) break;
      why += (why.empty() ? "" : "; ") + call->what + ": the answer names no email";
    } catch (const CredentialsError& e) {
      why += (why.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  if (email.empty()) {
    // Not cached: the next status check tries again.
    logger_.log(plugin::LogLevel::warn, "creds-adc: the user's email is unknown: " + why);
    return {};
  }
  std::lock_guard lock(emails_mutex_);
  emails_[found.key] = email;
  return email;
}

plugin::Identity AdcCredentials::identity() {
  plugin::Identity id;
  const auto location = locate_adc(settings_, environment_);
  id.source = location.path + " (" + location.how_found + ")";
  if (!location.exists) {
    id.problem = missing_problem(location);
    id.login_hint = login_hint(environment_);
    return id;
  }
  std::optional<Found> found;
  try {
    found = resolve(location);
  } catch (const std::exception& e) {
    id.problem = e.what();
    id.login_hint = login_hint(environment_);
    return id;
  }
  id.mode = settings_.copy_adc_file ? plugin::CredentialMode::forwarded
            : settings_.sealed       ? plugin::CredentialMode::sealed
                                     : plugin::CredentialMode::access_token;
  id.credential_type = found->credential_type;
  id.project_id = project(found->file);
  id.quota_project_id = quota_project(found->file);
  id.email = found->known_email;
  try {
    const auto token = tokens_.get(found->key, [&](SystemTime now) { return mint(*found, now); });
    id.token_expiry_rfc3339 = utc::to_rfc3339(token.expiry);
    id.email = email_of(*found, token.value);
  } catch (const std::exception& e) {
    id.problem = std::string("No access token can be made: ") + e.what();
    id.login_hint = login_hint(environment_);
  }
  return id;
}

std::optional<plugin::RunCredentials> AdcCredentials::credentials_for_run(
    const plugin::RunContext& run) {
  const auto location = locate_adc(settings_, environment_);
  if (!location.exists) {
    // Nothing configured and nothing logged in: the run goes without, as `auth status` says.
    if (location.how_found.starts_with("gcloud")) return std::nullopt;
    throw CredentialsError(missing_problem(location) + "; " + login_hint(environment_));
  }
  const Found found = resolve(location);
  MintedToken token;
  try {
    token = tokens_.get(found.key, [&](SystemTime now) { return mint(found, now); });
  } catch (const CredentialsError& e) {
    throw CredentialsError("No access token for the Application Default Credentials in " +
                           location.path + ": " + e.what());
  }
  plugin::RunCredentials out;
  out.mode = settings_.copy_adc_file ? plugin::CredentialMode::forwarded
             : settings_.sealed       ? plugin::CredentialMode::sealed
                                      : plugin::CredentialMode::access_token;
  out.credential_type = found.credential_type;
  out.token.access_token = token.value;
  out.token.expiry_rfc3339 = utc::to_rfc3339(token.expiry);
  out.token.email = email_of(found, token.value);
  out.token.project = project(found.file);
  out.token.quota_project = quota_project(found.file);
  out.scopes = google_oauth::split_words(token.scope);
  if (out.scopes.empty()) out.scopes = settings_.scopes;
  out.identity = !out.token.email.empty() ? out.token.email
                                          : found.credential_type + " from " + location.path;
  if (settings_.copy_adc_file) {
    out.files.push_back({std::string(kForwardedAdcPath), found.file.text});
    out.env.emplace_back("GOOGLE_APPLICATION_CREDENTIALS", "/app/" + std::string(kForwardedAdcPath));
  }
  logger_.log(plugin::LogLevel::debug, "creds-adc: a token for " + out.identity + " (until " +
                                           out.token.expiry_rfc3339 + ") for session " +
                                           run.session_id + " call " + std::to_string(run.call_id));
  return out;
}

}  // namespace kg::creds_adc
