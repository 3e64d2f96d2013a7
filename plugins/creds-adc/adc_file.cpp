#include "adc_file.hpp"

#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "credentials_plugin.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"

namespace kg::creds_adc {
namespace {

using plugin::CredentialsError;

std::string gcloud_dir(const AdcEnvironment& environment) {
  if (!environment.cloudsdk_config.empty()) return environment.cloudsdk_config;
  return environment.home + "/.config/gcloud";
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw CredentialsError("Cannot read the credentials file " + path + ": " +
                           std::error_code(errno, std::generic_category()).message());
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string required(const rapidjson::Value& object, const char* name, const std::string& type,
                     const std::string& path, const std::string& fix) {
  std::string value = json::string_member(object, name);
  if (value.empty()) {
    throw CredentialsError("The credentials file " + path + " (type " + type + ") has no \"" +
                           name + "\"; " + fix);
  }
  return value;
}

SourceCredentials source_of(const rapidjson::Value& object, const std::string& path,
                            const std::string& context) {
  const std::string type = json::string_member(object, "type");
  if (type == "authorized_user") {
    const std::string fix = "log in again with `gcloud auth application-default login`";
    return AuthorizedUser{required(object, "client_id", type, path, fix),
                          required(object, "client_secret", type, path, fix),
                          required(object, "refresh_token", type, path, fix),
                          json::string_member(object, "token_uri")};
  }
  if (type == "service_account") {
    const std::string fix = "download a new key file for the service account";
    ServiceAccountKey key{required(object, "client_email", type, path, fix),
                          required(object, "private_key", type, path, fix),
                          json::string_member(object, "private_key_id"),
                          json::string_member(object, "token_uri")};
    return key;
  }
  throw CredentialsError("The credentials file " + path + " has " + context + "type \"" + type +
                         "\"; creds-adc mints tokens for authorized_user, service_account and "
                         "impersonated_service_account credentials");
}

}  // namespace

AdcLocation locate_adc(const AdcSettings& settings, const AdcEnvironment& environment) {
  AdcLocation location;
  if (!settings.adc_file.empty()) {
    location = {settings.adc_file, "[creds-adc] adc_file", false};
  } else if (!environment.google_application_credentials.empty()) {
    location = {environment.google_application_credentials, "GOOGLE_APPLICATION_CREDENTIALS", false};
  } else {
    location = {gcloud_dir(environment) + "/application_default_credentials.json",
                environment.cloudsdk_config.empty()
                    ? "gcloud's well-known file"
                    : "gcloud's well-known file under CLOUDSDK_CONFIG",
                false};
  }
  std::error_code ec;
  location.exists = std::filesystem::exists(location.path, ec);
  return location;
}

std::string login_hint(const AdcEnvironment& environment) {
  return "run `gcloud auth application-default login` as " + environment.user +
         " (the user the daemon runs as; it writes " + gcloud_dir(environment) +
         "/application_default_credentials.json), or set GOOGLE_APPLICATION_CREDENTIALS in the "
         "daemon's environment, or [creds-adc] adc_file in its config, to a credentials file; "
         "then check with `kode-gopher auth status`";
}

AdcFile read_adc_file(const AdcLocation& location) {
  AdcFile file;
  file.path = location.path;
  file.how_found = location.how_found;
  file.text = read_whole(location.path);
  json::ReadJson read = json::read_json(file.text, json::kFileLimits);
  if (read.refused) {
    throw CredentialsError("The credentials file " + location.path + " (from " +
                           location.how_found + ") " + read.refused->describe());
  }
  const rapidjson::Document& doc = read.document;
  if (!doc.IsObject()) {
    throw CredentialsError("The credentials file " + location.path + " is not a JSON object");
  }
  file.type = json::string_member(doc, "type");
  if (file.type.empty()) {
    throw CredentialsError("The credentials file " + location.path + " has no \"type\"");
  }
  file.project_id = json::string_member(doc, "project_id");
  file.quota_project_id = json::string_member(doc, "quota_project_id");
  if (file.type == "impersonated_service_account") {
    ImpersonatedServiceAccount impersonated;
    const std::string fix =
        "create it again with `gcloud auth application-default login "
        "--impersonate-service-account=<email>`";
    impersonated.impersonation_url =
        required(doc, "service_account_impersonation_url", file.type, location.path, fix);
    // .../serviceAccounts/<email>:generateAccessToken
    const auto slash = impersonated.impersonation_url.rfind('/');
    const auto colon = impersonated.impersonation_url.rfind(':');
    if (slash == std::string::npos || colon == std::string::npos || colon < slash) {
      throw CredentialsError("The credentials file " + location.path +
                             " has a service_account_impersonation_url that does not end in "
                             "/serviceAccounts/<email>:generateAccessToken");
    }
    impersonated.target_email =
        impersonated.impersonation_url.substr(slash + 1, colon - slash - 1);
    const auto delegates = doc.FindMember("delegates");
    if (delegates != doc.MemberEnd() && delegates->value.IsArray()) {
      for (const auto& d : delegates->value.GetArray()) {
        if (d.IsString()) impersonated.delegates.emplace_back(d.GetString());
      }
    }
    const auto source = doc.FindMember("source_credentials");
    if (source == doc.MemberEnd() || !source->value.IsObject()) {
      throw CredentialsError("The credentials file " + location.path + " (type " + file.type +
                             ") has no \"source_credentials\" object; " + fix);
    }
    impersonated.source = source_of(source->value, location.path, "source_credentials of ");
    file.credentials = std::move(impersonated);
  } else {
    std::visit([&](auto&& c) { file.credentials = std::move(c); },
               source_of(doc, location.path, ""));
  }
  return file;
}

std::string gcloud_project(const AdcEnvironment& environment) {
  const std::string dir = gcloud_dir(environment);
  std::string active = environment.cloudsdk_active_config_name;
  if (active.empty()) {
    std::ifstream in(dir + "/active_config");
    std::getline(in, active);
  }
  if (active.empty()) active = "default";
  std::ifstream in(dir + "/configurations/config_" + active);
  std::string line, section;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("[")) {
      section = line;
      continue;
    }
    if (section != "[core]") continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    auto key = line.substr(0, equals);
    auto value = line.substr(equals + 1);
    key.erase(key.find_last_not_of(" \t") + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "project") return value;
  }
  return {};
}

}  // namespace kg::creds_adc
