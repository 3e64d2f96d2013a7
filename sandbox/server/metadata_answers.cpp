#include "metadata_answers.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <vector>

namespace kg::sandbox {
namespace {

constexpr std::string_view kPrefix = "/computeMetadata/v1/";

MetadataAnswer text(std::string body) { return {200, "application/text", std::move(body)}; }
MetadataAnswer not_found() { return {404, "application/text", "Not Found\n"}; }

MetadataAnswer json(const rapidjson::StringBuffer& buffer) {
  return {200, "application/json", std::string(buffer.GetString(), buffer.GetSize())};
}

// The query's parameters as name=value pieces (values stay encoded; only names are compared).
bool query_has(std::string_view query, std::string_view parameter) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    if (query.substr(0, amp) == parameter) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

std::string email_of(const MetadataIdentity& identity) {
  return identity.email.empty() ? "default" : identity.email;
}

MetadataAnswer token(const MetadataIdentity& identity, std::chrono::system_clock::time_point now) {
  // The true remaining lifetime, never rounded up: a client must not keep a token past its
  // expiry. The host hands over tokens with more than five minutes left, so clients start with
  // expires_in > 300 (below that Node and gcloud refetch on every request: still correct).
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(identity.expiry - now).count();
  if (left <= 0) return not_found();  // expired: as the real server does for a revoked account
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("access_token");
  writer.String(identity.access_token.c_str(),
                static_cast<rapidjson::SizeType>(identity.access_token.size()));
  writer.Key("expires_in");
  writer.Int64(left);
  writer.Key("token_type");
  writer.String("Bearer");
  writer.EndObject();
  return json(buffer);
}

MetadataAnswer service_account(std::string_view rest, std::string_view query,
                               const MetadataIdentity& identity,
                               std::chrono::system_clock::time_point now) {
  // rest: "<default|email>/" + ("" | "email" | "scopes" | "token" | "aliases")
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return not_found();
  const std::string_view account = rest.substr(0, slash);
  if (account != "default" && (identity.email.empty() || account != identity.email)) {
    return not_found();
  }
  const std::string_view leaf = rest.substr(slash + 1);
  if (leaf.empty()) {
    if (!query_has(query, "recursive=true")) return text("aliases\nemail\nscopes\ntoken\n");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    const std::string email = email_of(identity);
    writer.StartObject();
    writer.Key("aliases");
    writer.StartArray();
    writer.String("default");
    writer.EndArray();
    writer.Key("email");
    writer.String(email.c_str(), static_cast<rapidjson::SizeType>(email.size()));
    writer.Key("scopes");
    writer.StartArray();
    writer.String(kCloudPlatformScope);
    writer.EndArray();
    writer.EndObject();
    return json(buffer);
  }
  if (leaf == "email") return text(email_of(identity));
  if (leaf == "scopes") return text(std::string(kCloudPlatformScope) + "\n");
  if (leaf == "aliases") return text("default\n");
  if (leaf == "token") return token(identity, now);
  return not_found();
}

}  // namespace

MetadataAnswer answer_metadata_request(const MetadataRequest& request,
                                       const MetadataIdentity& identity,
                                       std::chrono::system_clock::time_point now) {
  if (request.method != "GET") return {405, "application/text", "Method Not Allowed\n"};
  const auto question = request.target.find('?');
  const std::string_view path = request.target.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : request.target.substr(question + 1);
  if (path == "/") return text("computeMetadata/\n");
  // The real server refuses requests that came through a proxy (a server-side request forgery
  // defence); so does this one.
  if (request.forwarded) {
    return {403, "application/text", "Requests with X-Forwarded-For are refused\n"};
  }
  if (!request.metadata_flavor_google) {
    return {403, "application/text", "Missing required header: Metadata-Flavor: Google\n"};
  }
  if (!path.starts_with(kPrefix)) return not_found();
  const std::string_view key = path.substr(kPrefix.size());
  if (key == "project/project-id") {
    return identity.project.empty() ? not_found() : text(identity.project);
  }
  if (key == "universe/universe-domain") return text("googleapis.com");
  if (key == "instance/service-accounts/") {
    return text("default/\n" + (identity.email.empty() ? "" : identity.email + "/\n"));
  }
  constexpr std::string_view kAccounts = "instance/service-accounts/";
  if (key.starts_with(kAccounts)) {
    return service_account(key.substr(kAccounts.size()), query, identity, now);
  }
  return not_found();
}

}  // namespace kg::sandbox
