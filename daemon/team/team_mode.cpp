#include "team_mode.hpp"

#include "metrics_text.hpp"

#include "authorization_server.hpp"
#include "team_settings.hpp"
#include "http/mcp_endpoint.hpp"
#include "http/mcp_session_registry.hpp"
#include "http/request_authenticator.hpp"
#include "http/team_http_server.hpp"
#include "http/user_call_limits.hpp"

namespace kg::team {
namespace {

// [http] auth = oauth: the authorization server answers the OAuth paths and checks /mcp's
// bearer tokens.
class OAuthGate final : public RequestAuthenticator, public OAuthRoutes {
 public:
  explicit OAuthGate(std::unique_ptr<AuthorizationServer> server) : server_(std::move(server)) {}
  std::variant<SignedInUser, AuthFailure> authenticate(const HttpExchange& request) override {
    return server_->authenticate(request);
  }
  bool serves(std::string_view path) const override { return server_->serves(path); }
  HttpReply handle(const HttpExchange& request) override { return server_->handle(request); }
  AuthorizationServer& server() { return *server_; }

 private:
  std::unique_ptr<AuthorizationServer> server_;
};

OAuthSettings oauth_settings(const config::DaemonConfig& config, const std::string& public_url) {
  OAuthSettings settings;
  settings.public_url = public_url;
  settings.state_dir = config.state_dir;
  settings.issuer = config::effective_issuer(config.oauth);
  settings.client_id = config.oauth.client_id;
  settings.client_secret_file = config.oauth.client_secret_file;
  settings.scopes = config::effective_scopes(config.oauth);
  settings.allowed_users = config.oauth.allowed_users;
  settings.allowed_domains = config.oauth.allowed_domains;
  settings.access_token_ttl_s = config.oauth.access_token_ttl_s;
  settings.refresh_token_ttl_s = config.oauth.refresh_token_ttl_s;
  settings.registrations_per_hour = config.oauth.registrations_per_hour;
  return settings;
}

}  // namespace

struct TeamMode::Parts {
  session::CallCredentials* owner_credentials = nullptr;  // set while it uses the OAuth server
  std::unique_ptr<RequestAuthenticator> authenticator;
  OAuthRoutes* oauth = nullptr;
  std::unique_ptr<McpSessionRegistry> sessions;
  std::unique_ptr<UserCallLimits> limits;
  std::unique_ptr<McpEndpoint> endpoint;
  std::unique_ptr<TeamHttpServer> server;
  api::TeamEndpointStatus status;
};

TeamMode::TeamMode(const config::DaemonConfig& config, api::ApiContext& api,
                   plugin::Logger& logger)
    : parts_(std::make_unique<Parts>()) {
  auto& p = *parts_;
  const std::string public_url = config::effective_public_url(config.http);
  RegistryOptions registry;
  registry.max_sessions_per_user = config.team.max_sessions_per_user;
  registry.idle_timeout = std::chrono::seconds(config.team.idle_timeout_s);
  if (config.http.auth == "none") {
    p.authenticator = std::make_unique<LocalUserAuthenticator>();
    logger.log(plugin::LogLevel::warn,
               "[http] auth = none: everyone who can connect to " + config.http.listen +
                   " runs code as the one user \"local\", with the daemon's own credentials");
  } else {
    auto gate = std::make_unique<OAuthGate>(std::make_unique<AuthorizationServer>(
        oauth_settings(config, public_url), api.store, logger));
    p.oauth = gate.get();
    if (config.team.run_as == "user") {
      // Programs of a signed-in user's sessions run with that user's own Google token: sealed
      // by default (the sandbox holds a placeholder; the egress proxy adds the token).
      AuthorizationServer& server = gate->server();
      api.credentials.use_owner_credentials(
          {[&server](const std::string& owner) { return server.upstream_credentials(owner); },
           config.team.user_token_mode == "access-token" ? plugin::CredentialMode::access_token
                                                         : plugin::CredentialMode::sealed});
      p.owner_credentials = &api.credentials;
      registry.identity = {true, config::effective_issuer(config.oauth)};
    }
    logger.log(plugin::LogLevel::info,
               "Sign-in through " + config::effective_issuer(config.oauth) + "; programs run as " +
                   (config.team.run_as == "user"
                        ? "each signed-in user (" + config.team.user_token_mode + ")"
                        : std::string("the daemon's [credentials] identity")));
    p.authenticator = std::move(gate);
  }
  p.sessions = std::make_unique<McpSessionRegistry>(registry, api, logger);
  p.limits = std::make_unique<UserCallLimits>(config.team.calls_per_minute,
                                              config.team.max_queued_per_user);
  p.endpoint = std::make_unique<McpEndpoint>(
      EndpointOptions{public_url, config.http.listen, config.http.allowed_origins,
                      config.http.max_request_bytes},
      *p.authenticator, *p.sessions, *p.limits, logger);
  HttpServerOptions server;
  server.listen = config.http.listen;
  server.tls_certificate = config.http.tls_certificate;
  server.tls_key = config.http.tls_key;
  server.max_request_bytes = config.http.max_request_bytes;
  // Each open session may hold a call and its event stream; room for 60 or so users' sessions,
  // and for sign-ins beside them. More requests wait in Poco's queue.
  server.max_threads = 512;
  server.connections.header_timeout = std::chrono::seconds(config.team.header_timeout_s);
  server.connections.keep_alive = std::chrono::seconds(config.team.keep_alive_s);
  server.connections.body_timeout = std::chrono::seconds(config.team.body_timeout_s);
  server.connections.per_address = config.team.max_connections_per_address;
  server.unauthenticated_per_minute = config.team.unauthenticated_per_minute;
  server.metrics = [&api] { return api::metrics_text(api); };
  try {
    p.server = std::make_unique<TeamHttpServer>(server, *p.endpoint, p.oauth, logger);
  } catch (...) {
    if (p.owner_credentials) p.owner_credentials->use_owner_credentials({});
    throw;
  }
  const bool tls = !config.http.tls_certificate.empty();
  p.status = {public_url + "/mcp", p.server->bound_address(),
              tls ? "https" : config.http.trusted_proxy ? "http behind a trusted proxy" : "http",
              config.http.auth, config.http.auth == "none" ? "" : config.team.run_as};
  logger.log(plugin::LogLevel::info,
             "MCP over streamable HTTP at " + p.status.url + " (listening on " +
                 p.status.listening + ", " + p.status.transport + ")");
}

const api::TeamEndpointStatus& TeamMode::status() const { return parts_->status; }

TeamMode::~TeamMode() { stop(); }

void TeamMode::start() { parts_->server->start(); }

void TeamMode::stop() {
  if (!parts_) return;
  parts_->server->stop();
  parts_->sessions->close_all();
  // No owned session is left to ask for a user's token; the OAuth server may go.
  if (parts_->owner_credentials) parts_->owner_credentials->use_owner_credentials({});
  parts_->owner_credentials = nullptr;
}

const std::string& TeamMode::bound_address() const { return parts_->server->bound_address(); }

}  // namespace kg::team
