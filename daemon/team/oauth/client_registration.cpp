// AuthorizationServer: who the clients are. RFC 7591 dynamic registration of public clients
// (POST /oauth/register), and Client ID Metadata Documents (a client_id that is an https URL
// naming a JSON document the client publishes), looked up at /oauth/authorize.
#include <Poco/URI.h>
#include <netdb.h>
#include <rapidjson/document.h>
#include <sys/socket.h>

#include "address_policy.hpp"
#include "authorization_server.hpp"
#include "host_name.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"
#include "oauth_replies.hpp"
#include "oauth_secrets.hpp"
#include "upstream_http.hpp"
#include "url_form.hpp"

namespace kg::team {

namespace oauth {

std::optional<std::string> metadata_document_host_problem(const std::string& host) {
  std::optional<net::Host> parsed;
  try {
    parsed.emplace(net::Host::parse(host));  // so the name checked is the name fetched from
  } catch (const net::InvalidHost& e) {
    return std::string("its host ") + e.what();
  }
  if (parsed->ip() != nullptr) return "its host is an IP address, not a name";
  const std::string& name = parsed->text();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(name.c_str(), "443", &hints, &found) != 0 || found == nullptr) {
    return "its host name does not resolve";
  }
  std::optional<std::string> problem;
  for (const addrinfo* entry = found; entry != nullptr && !problem; entry = entry->ai_next) {
    if (auto why = net::why_not_public(entry->ai_addr, {})) {
      problem = "its host " + name + " resolves to " + *why;
    }
  }
  ::freeaddrinfo(found);
  return problem;
}

}  // namespace oauth

namespace {

constexpr std::size_t kMaxRedirectUris = 10, kMaxUriLength = 2000, kMaxNameLength = 200;
constexpr std::size_t kMaxMetadataDocumentBytes = 5 * 1024;

// Every entry a string from `allowed`; absent is fine. "" when acceptable, else why not.
std::string list_problem(const rapidjson::Value& object, const char* name,
                         std::initializer_list<std::string_view> allowed) {
  const auto found = object.FindMember(name);
  if (found == object.MemberEnd()) return "";
  if (!found->value.IsArray()) return std::string(name) + " must be an array of strings";
  for (const auto& entry : found->value.GetArray()) {
    if (!entry.IsString() ||
        std::find(allowed.begin(), allowed.end(), std::string_view(entry.GetString())) == allowed.end()) {
      std::string names;
      for (const auto word : allowed) names += (names.empty() ? "" : ", ") + std::string(word);
      return std::string(name) + " may only hold " + names;
    }
  }
  return "";
}

// What both registration and metadata documents must satisfy; fills `client`. "" when fine.
std::string client_metadata_problem(const rapidjson::Value& document,
                                    store::OAuthClientRecord& client) {
  if (!document.IsObject()) return "the client metadata must be a JSON object";
  const auto uris = document.FindMember("redirect_uris");
  if (uris == document.MemberEnd() || !uris->value.IsArray() || uris->value.Empty()) {
    return "redirect_uris must list at least one redirect URI";
  }
  if (uris->value.Size() > kMaxRedirectUris) return "at most 10 redirect_uris are accepted";
  for (const auto& uri : uris->value.GetArray()) {
    if (!uri.IsString() || uri.GetStringLength() > kMaxUriLength) {
      return "every redirect URI must be a string of at most 2000 characters";
    }
    if (const std::string problem = oauth::redirect_uri_problem(uri.GetString()); !problem.empty()) {
      return problem + " (" + uri.GetString() + ")";
    }
    client.redirect_uris.emplace_back(uri.GetString());
  }
  const std::string method = json::string_member(document, "token_endpoint_auth_method");
  if (!method.empty() && method != "none") {
    return "token_endpoint_auth_method must be \"none\": this server registers public clients "
           "only (they prove themselves with PKCE)";
  }
  if (auto problem = list_problem(document, "grant_types", {"authorization_code", "refresh_token"});
      !problem.empty()) {
    return problem;
  }
  if (auto problem = list_problem(document, "response_types", {"code"}); !problem.empty()) {
    return problem;
  }
  client.client_name = json::string_member(document, "client_name").substr(0, kMaxNameLength);
  return "";
}

bool is_metadata_document_url(const std::string& client_id) {
  return client_id.rfind("https://", 0) == 0;
}

}  // namespace

HttpReply AuthorizationServer::register_client(const HttpExchange& request) {
  const json::ReadJson read = json::read_json(request.body, json::kRequestLimits);
  if (read.refused || !read.document.IsObject()) {
    return oauth::oauth_error(400, "invalid_client_metadata",
                              "The registration body must be a JSON object (RFC 7591)" +
                                  (read.refused ? "; it " + read.refused->describe() : "") + ".");
  }
  const rapidjson::Document& document = read.document;
  store::OAuthClientRecord client;
  if (const std::string problem = client_metadata_problem(document, client); !problem.empty()) {
    const bool about_uris = problem.find("redirect") != std::string::npos;
    return oauth::oauth_error(400, about_uris ? "invalid_redirect_uri" : "invalid_client_metadata",
                              "Cannot register the client: " + problem + ".");
  }
  client.client_id = "kgc-" + oauth::random_secret(24);
  client.created_at = clock_();
  if (!store_.insert_oauth_client(client, settings_.max_unused_registrations,
                                  settings_.unused_registration_ttl_s,
                                  settings_.unstarted_registration_ttl_s)) {
    logger_.log(plugin::LogLevel::warn,
                "oauth: refused a registration: " + std::to_string(settings_.max_unused_registrations) +
                    " registrations are waiting for their first sign-in");
    // Those nobody starts a sign-in with are gone within unstarted_registration_ttl_s.
    const std::int64_t retry_s = std::max<std::int64_t>(60, settings_.unstarted_registration_ttl_s);
    HttpReply reply = oauth::oauth_error(
        429, "temporarily_unavailable",
        "Too many clients registered here recently without signing in; try again in " +
            std::to_string((retry_s + 59) / 60) + " minutes, or ask the server's operator.");
    reply.headers.emplace_back("Retry-After", std::to_string(retry_s));
    return reply;
  }
  logger_.log(plugin::LogLevel::info, "oauth: registered client \"" + client.client_name +
                                          "\" as " + client.client_id);

  rapidjson::Document answer(rapidjson::kObjectType);
  auto& allocator = answer.GetAllocator();
  answer.AddMember("client_id", rapidjson::Value(client.client_id.c_str(), allocator), allocator);
  answer.AddMember("client_id_issued_at", client.created_at, allocator);
  rapidjson::Value uris(rapidjson::kArrayType);
  for (const auto& uri : client.redirect_uris) uris.PushBack(rapidjson::Value(uri.c_str(), allocator), allocator);
  answer.AddMember("redirect_uris", uris, allocator);
  if (!client.client_name.empty()) {
    answer.AddMember("client_name", rapidjson::Value(client.client_name.c_str(), allocator), allocator);
  }
  answer.AddMember("token_endpoint_auth_method", "none", allocator);
  rapidjson::Value grants(rapidjson::kArrayType);
  grants.PushBack("authorization_code", allocator).PushBack("refresh_token", allocator);
  answer.AddMember("grant_types", grants, allocator);
  rapidjson::Value responses(rapidjson::kArrayType);
  responses.PushBack("code", allocator);
  answer.AddMember("response_types", responses, allocator);
  HttpReply reply = oauth::json_reply(201, answer);
  reply.headers = {{"Cache-Control", "no-store"}};
  return reply;
}

std::optional<store::OAuthClientRecord> AuthorizationServer::find_client(
    const std::string& client_id) {
  if (!is_metadata_document_url(client_id)) return store_.find_oauth_client(client_id);
  // A Client ID Metadata Document: https only (UpstreamHttp also takes loopback http, which a
  // client_id must never be), a path, no fragment; the document must name itself.
  const Poco::URI uri(client_id);
  if (uri.getPath().empty() || uri.getPath() == "/" || !uri.getFragment().empty()) return std::nullopt;
  // Anyone may name a client ID: never let one make the daemon fetch from itself, its network
  // or a metadata server (SSRF).
  if (const auto problem = oauth::metadata_document_host_problem(uri.getHost())) {
    logger_.log(plugin::LogLevel::warn, "Refused the client ID " + client_id + ": " + *problem);
    return std::nullopt;
  }
  const oauth::UpstreamAnswer answer =
      metadata_documents_->get(client_id, "Fetching the client's metadata document");
  if (answer.status != 200 || answer.body.size() > kMaxMetadataDocumentBytes) return std::nullopt;
  const rapidjson::Document document =
      json::read_json(answer.body, json::kUpstreamReplyLimits).document;
  if (!document.IsObject() || json::string_member(document, "client_id") != client_id) {
    return std::nullopt;
  }
  store::OAuthClientRecord client;
  if (!client_metadata_problem(document, client).empty()) return std::nullopt;
  client.client_id = client_id;
  return client;
}

}  // namespace kg::team
