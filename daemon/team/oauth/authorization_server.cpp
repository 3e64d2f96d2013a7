// AuthorizationServer: construction, routing, and the metadata documents (RFC 9728, RFC 8414).
// The endpoints live in client_registration.cpp, authorize_endpoint.cpp, token_endpoint.cpp,
// resource_check.cpp and upstream_credentials.cpp.
#include "authorization_server.hpp"

#include <chrono>
#include <exception>

#include "oauth_replies.hpp"
#include "pending_authorization.hpp"
#include "token_sealer.hpp"
#include "upstream_http.hpp"
#include "upstream_oidc_client.hpp"
#include "user_allowlist.hpp"

namespace kg::team {
namespace {

constexpr std::size_t kMaxPendingSignIns = 10'000;

std::int64_t system_clock_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

rapidjson::Value string_array(std::initializer_list<const char*> values,
                              rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value array(rapidjson::kArrayType);
  for (const char* value : values) array.PushBack(rapidjson::StringRef(value), allocator);
  return array;
}

void add_text(rapidjson::Document& document, const char* name, const std::string& value) {
  auto& allocator = document.GetAllocator();
  document.AddMember(rapidjson::StringRef(name), rapidjson::Value(value.c_str(), allocator),
                     allocator);
}

}  // namespace

AuthorizationServer::AuthorizationServer(OAuthSettings settings, store::Store& store,
                                         plugin::Logger& logger)
    : AuthorizationServer(std::move(settings), store, logger, &system_clock_seconds) {}

AuthorizationServer::AuthorizationServer(OAuthSettings settings, store::Store& store,
                                         plugin::Logger& logger, Clock clock)
    : settings_(std::move(settings)), store_(store), logger_(logger), clock_(std::move(clock)) {
  while (!settings_.public_url.empty() && settings_.public_url.back() == '/') {
    settings_.public_url.pop_back();
  }
  allowlist_ = std::make_unique<oauth::UserAllowlist>(settings_.allowed_users,
                                                      settings_.allowed_domains);
  sealer_ = std::make_unique<oauth::TokenSealer>(settings_.state_dir);
  upstream_ = std::make_unique<oauth::UpstreamOidcClient>(settings_.issuer, settings_.client_id,
                                                          settings_.client_secret_file);
  metadata_documents_ = std::make_unique<oauth::UpstreamHttp>(std::chrono::seconds(5));
  registrations_ = std::make_unique<AddressRateLimiter>(
      settings_.registrations_per_hour, 3600, [this] { return static_cast<double>(clock_()); });
}

AuthorizationServer::~AuthorizationServer() = default;

bool AuthorizationServer::serves(std::string_view path) const {
  return path == "/.well-known/oauth-protected-resource" ||
         path == "/.well-known/oauth-protected-resource/mcp" ||
         path == "/.well-known/oauth-authorization-server" ||
         path == "/.well-known/openid-configuration" || path == "/oauth/authorize" ||
         path == "/oauth/callback" || path == "/oauth/token" || path == "/oauth/register" ||
         path == "/oauth/consent";
}

HttpReply AuthorizationServer::handle(const HttpExchange& request) {
  try {
    return dispatch(request);
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::error,
                "oauth: " + request.method + " " + request.path + " failed: " + e.what());
    if (request.path == "/oauth/token" || request.path == "/oauth/register") {
      return oauth::oauth_error(500, "server_error",
                                "The server failed to answer; try again, and if it keeps "
                                "failing tell its administrator (the daemon's log says why).");
    }
    return oauth::page_reply(500, "Sign-in failed",
                             std::string("The server failed: ") + e.what() +
                                 ". Try again; if it keeps failing, tell its administrator.");
  }
}

HttpReply AuthorizationServer::dispatch(const HttpExchange& request) {
  const std::string& path = request.path;
  const bool get = request.method == "GET" || request.method == "HEAD";
  auto wrong_method = [&](const char* allowed) {
    HttpReply reply = oauth::page_reply(405, "Method not allowed",
                                        path + " answers " + allowed + " only.");
    reply.headers.emplace_back("Allow", allowed);
    return reply;
  };
  if (path == "/.well-known/oauth-protected-resource" ||
      path == "/.well-known/oauth-protected-resource/mcp") {
    return get ? protected_resource_metadata() : wrong_method("GET");
  }
  if (path == "/.well-known/oauth-authorization-server" ||
      path == "/.well-known/openid-configuration") {
    return get ? authorization_server_metadata() : wrong_method("GET");
  }
  if (path == "/oauth/authorize") return get ? authorize(request) : wrong_method("GET");
  if (path == "/oauth/callback") return get ? callback(request) : wrong_method("GET");
  if (path == "/oauth/consent") return request.method == "POST" ? consent(request) : wrong_method("POST");
  if (path == "/oauth/token") {
    return request.method == "POST" ? token(request) : wrong_method("POST");
  }
  if (path == "/oauth/register") {
    if (request.method != "POST") return wrong_method("POST");
    // Per client address, before anything else: a flood from one address must not use up the
    // room every other address registers in (docs/team-mode.md, "Slow and unknown clients").
    if (const auto retry_s = registrations_->take(request.client_address)) {
      logger_.log(plugin::LogLevel::warn, "oauth: refused a registration from " +
                                              request.client_address + ": over [oauth] "
                                              "registrations_per_hour");
      HttpReply reply = oauth::oauth_error(
          429, "temporarily_unavailable",
          "Too many client registrations from your address (at most " +
              std::to_string(registrations_->allowance()) +
              " an hour, [oauth] registrations_per_hour); try again in " + std::to_string(*retry_s) +
              " seconds.");
      reply.headers.emplace_back("Retry-After", std::to_string(*retry_s));
      return reply;
    }
    return register_client(request);
  }
  return oauth::page_reply(404, "Not found", path + " is not an OAuth endpoint of this server.");
}

HttpReply AuthorizationServer::protected_resource_metadata() const {
  rapidjson::Document document(rapidjson::kObjectType);
  auto& allocator = document.GetAllocator();
  add_text(document, "resource", resource());
  rapidjson::Value servers(rapidjson::kArrayType);
  servers.PushBack(rapidjson::Value(settings_.public_url.c_str(), allocator), allocator);
  document.AddMember("authorization_servers", servers, allocator);
  document.AddMember("scopes_supported", string_array({"mcp"}, allocator), allocator);
  document.AddMember("bearer_methods_supported", string_array({"header"}, allocator), allocator);
  return oauth::json_reply(200, document);
}

HttpReply AuthorizationServer::authorization_server_metadata() const {
  rapidjson::Document document(rapidjson::kObjectType);
  auto& allocator = document.GetAllocator();
  const std::string& base = settings_.public_url;
  add_text(document, "issuer", base);
  add_text(document, "authorization_endpoint", base + "/oauth/authorize");
  add_text(document, "token_endpoint", base + "/oauth/token");
  add_text(document, "registration_endpoint", base + "/oauth/register");
  document.AddMember("scopes_supported", string_array({"mcp"}, allocator), allocator);
  document.AddMember("response_types_supported", string_array({"code"}, allocator), allocator);
  document.AddMember("grant_types_supported",
                     string_array({"authorization_code", "refresh_token"}, allocator), allocator);
  document.AddMember("token_endpoint_auth_methods_supported", string_array({"none"}, allocator),
                     allocator);
  document.AddMember("code_challenge_methods_supported", string_array({"S256"}, allocator),
                     allocator);
  document.AddMember("authorization_response_iss_parameter_supported", true, allocator);
  document.AddMember("client_id_metadata_document_supported", true, allocator);
  return oauth::json_reply(200, document);
}

void AuthorizationServer::remember(const std::string& upstream_state,
                                   oauth::PendingAuthorization pending) {
  std::lock_guard lock(pending_mutex_);
  const std::int64_t now = clock_();
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = it->second.expires_at < now ? pending_.erase(it) : std::next(it);
  }
  if (pending_.size() >= kMaxPendingSignIns) {
    throw std::runtime_error("too many sign-ins are under way (" +
                             std::to_string(kMaxPendingSignIns) + "); try again in a few minutes");
  }
  pending_.emplace(upstream_state, std::move(pending));
}

std::optional<oauth::PendingAuthorization> AuthorizationServer::take_pending(
    const std::string& upstream_state) {
  std::lock_guard lock(pending_mutex_);
  const auto found = pending_.find(upstream_state);
  if (found == pending_.end()) return std::nullopt;
  oauth::PendingAuthorization pending = std::move(found->second);
  pending_.erase(found);
  if (pending.expires_at < clock_()) return std::nullopt;
  return pending;
}

}  // namespace kg::team
