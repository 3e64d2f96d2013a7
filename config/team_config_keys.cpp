// The [http], [oauth] and [team] keys: team mode (docs/team-mode.md). Kept apart from
// config_keys.cpp's table, which config_key_specs() joins to this one.
#include "team_config_keys.hpp"

namespace kg::config {
namespace {

constexpr std::string_view kBooleans[] = {"false", "true"};
constexpr std::string_view kHttpAuth[] = {"oauth", "none"};
constexpr std::string_view kRunAs[] = {"user", "daemon"};
constexpr std::string_view kUserTokenModes[] = {"sealed", "access-token"};

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

constexpr ConfigKeySpec kTeamKeySpecs[] = {
    {.section = "http", .name = "listen", .kind = ValueKind::host_port,
     .default_text = "none: no HTTP endpoint",
     .help = "host:port the daemon serves MCP over streamable HTTP on (`/mcp`, with OAuth "
             "sign-in); see docs/team-mode.md.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.listen = v.text; },
     .current = [](const DaemonConfig& c) { return c.http.listen; }},
    {.section = "http", .name = "public_url", .kind = ValueKind::text,
     .default_text = "`http://<listen>`",
     .help = "The URL clients reach the daemon at (scheme, host, port; no path); the MCP "
             "resource is `<public_url>/mcp`, and OAuth metadata and redirects use it.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.public_url = v.text; },
     .current = [](const DaemonConfig& c) { return c.http.public_url; }},
    {.section = "http", .name = "tls_certificate", .kind = ValueKind::absolute_path,
     .default_text = "none: plain HTTP",
     .help = "PEM certificate chain for HTTPS on `listen` (with tls_key).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.tls_certificate = v.text; },
     .current = [](const DaemonConfig& c) { return c.http.tls_certificate; }},
    {.section = "http", .name = "tls_key", .kind = ValueKind::absolute_path,
     .default_text = "none",
     .help = "PEM private key of tls_certificate.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.tls_key = v.text; },
     .current = [](const DaemonConfig& c) { return c.http.tls_key; }},
    {.section = "http", .name = "trusted_proxy", .kind = ValueKind::choice, .choices = kBooleans,
     .default_text = "false",
     .help = "true: serve plain HTTP on a non-loopback address because TLS ends at a proxy in "
             "front (an Ingress or Gateway).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.trusted_proxy = v.text == "true"; },
     .current = [](const DaemonConfig& c) {
       return std::string(c.http.trusted_proxy ? "true" : "false");
     }},
    {.section = "http", .name = "allowed_origins", .kind = ValueKind::word_list,
     .default_text = "none: only public_url's origin",
     .help = "Origin values admitted besides public_url's own; requests "
             "carrying another Origin get 403 (requests without one are admitted).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.allowed_origins = v.list; },
     .current = [](const DaemonConfig& c) { return join_words(c.http.allowed_origins); }},
    {.section = "http", .name = "max_request_bytes", .kind = ValueKind::integer, .min = 1024,
     .max = 1073741824, .default_text = "4194304",
     .help = "Largest request body `/mcp` accepts; larger ones get 413.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.max_request_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.http.max_request_bytes); }},
    {.section = "http", .name = "auth", .kind = ValueKind::choice, .choices = kHttpAuth,
     .default_text = "oauth",
     .help = "oauth: sign-in through the [oauth] issuer; none: no sign-in, everyone who can "
             "connect is the one user `local` (loopback `listen` only).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.http.auth = v.text; },
     .current = [](const DaemonConfig& c) { return c.http.auth; }},
    {.section = "oauth", .name = "issuer", .kind = ValueKind::text,
     .default_text = "`https://accounts.google.com`",
     .help = "The upstream OpenID Connect issuer users sign in with (discovery at "
             "`<issuer>/.well-known/openid-configuration`).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.oauth.issuer = v.text; },
     .current = [](const DaemonConfig& c) { return c.oauth.issuer; }},
    {.section = "oauth", .name = "client_id", .kind = ValueKind::text,
     .default_text = "none (required with auth = oauth)",
     .help = "The daemon's OAuth client at the issuer (redirect URI `<public_url>/oauth/callback`).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.oauth.client_id = v.text; },
     .current = [](const DaemonConfig& c) { return c.oauth.client_id; }},
    {.section = "oauth", .name = "client_secret_file", .kind = ValueKind::absolute_path,
     .default_text = "none: a public client",
     .help = "File holding that client's secret (one line).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.oauth.client_secret_file = v.text; },
     .current = [](const DaemonConfig& c) { return c.oauth.client_secret_file; }},
    {.section = "oauth", .name = "scopes", .kind = ValueKind::word_list,
     .default_text = "`openid email https://www.googleapis.com/auth/cloud-platform`",
     .help = "Scopes asked of the issuer; with run_as = user, the user's Google "
             "token carries them.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.oauth.scopes = v.list; },
     .current = [](const DaemonConfig& c) { return join_words(c.oauth.scopes); }},
    {.section = "oauth", .name = "allowed_users", .kind = ValueKind::word_list,
     .default_text = "none",
     .help = "Emails that may sign in (with allowed_domains; both empty: nobody).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.oauth.allowed_users = v.list; },
     .current = [](const DaemonConfig& c) { return join_words(c.oauth.allowed_users); }},
    {.section = "oauth", .name = "allowed_domains", .kind = ValueKind::word_list,
     .default_text = "none",
     .help = "Email domains whose users may sign in.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.oauth.allowed_domains = v.list; },
     .current = [](const DaemonConfig& c) { return join_words(c.oauth.allowed_domains); }},
    {.section = "oauth", .name = "access_token_ttl_s", .kind = ValueKind::integer, .min = 60,
     .max = 86400, .default_text = "900",
     .help = "Lifetime of the access tokens the daemon issues to MCP clients.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.oauth.access_token_ttl_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.oauth.access_token_ttl_s); }},
    {.section = "oauth", .name = "refresh_token_ttl_s", .kind = ValueKind::integer, .min = 3600,
     .max = 7776000, .default_text = "604800",
     .help = "Lifetime of a refresh token (each use replaces it with a new one).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.oauth.refresh_token_ttl_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.oauth.refresh_token_ttl_s); }},
    {.section = "oauth", .name = "registrations_per_hour", .kind = ValueKind::integer, .min = 1,
     .max = 100000, .default_text = "30",
     .help = "Client registrations (`POST /oauth/register`) one client address may make per hour; "
             "more get 429 with Retry-After.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.oauth.registrations_per_hour = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.oauth.registrations_per_hour); }},
    {.section = "team", .name = "run_as", .kind = ValueKind::choice, .choices = kRunAs,
     .default_text = "user",
     .help = "Whose Google identity team-mode programs run as: user (the signed-in user's own "
             "token) or daemon (the [credentials] plugin's: a service account or workload "
             "identity).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.team.run_as = v.text; },
     .current = [](const DaemonConfig& c) { return c.team.run_as; }},
    {.section = "team", .name = "user_token_mode", .kind = ValueKind::choice,
     .choices = kUserTokenModes, .default_text = "sealed",
     .help = "With run_as = user, what a program gets of the signed-in user's Google token: "
             "sealed (a placeholder; the daemon's egress proxy puts the user's token in its place "
             "on requests to Google API hosts) or access-token (the short-lived token itself, "
             "for sandboxes whose egress does not go through the daemon's proxy).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.team.user_token_mode = v.text; },
     .current = [](const DaemonConfig& c) { return c.team.user_token_mode; }},
    {.section = "team", .name = "max_sessions_per_user", .kind = ValueKind::integer, .min = 1,
     .max = 64, .default_text = "4",
     .help = "MCP sessions (each with its own sandbox) one user may have open.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.max_sessions_per_user = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.max_sessions_per_user); }},
    {.section = "team", .name = "max_queued_per_user", .kind = ValueKind::integer, .min = 1,
     .max = 256, .default_text = "8",
     .help = "Tool calls one user may have waiting or running at once; more get 429.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.max_queued_per_user = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.max_queued_per_user); }},
    {.section = "team", .name = "calls_per_minute", .kind = ValueKind::integer, .min = 1,
     .max = 6000, .default_text = "30",
     .help = "Tool calls one user may start per minute; more get 429 with Retry-After.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.calls_per_minute = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.calls_per_minute); }},
    {.section = "team", .name = "idle_timeout_s", .kind = ValueKind::integer, .min = 5,
     .max = 86400, .default_text = "900",
     .help = "An MCP session with no request for this long is closed and its sandbox released.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.idle_timeout_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.idle_timeout_s); }},
    {.section = "team", .name = "header_timeout_s", .kind = ValueKind::integer, .min = 1,
     .max = 300, .default_text = "10",
     .help = "Seconds a connection has to send a request's headers (the first one counted from "
             "connecting); then it is closed.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.header_timeout_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.header_timeout_s); }},
    {.section = "team", .name = "keep_alive_s", .kind = ValueKind::integer, .min = 1,
     .max = 3600, .default_text = "15",
     .help = "Seconds an idle kept-alive connection may wait for its next request.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.keep_alive_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.keep_alive_s); }},
    {.section = "team", .name = "body_timeout_s", .kind = ValueKind::integer, .min = 1,
     .max = 3600, .default_text = "30",
     .help = "Seconds a request has to send its whole body once its headers arrived.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.body_timeout_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.body_timeout_s); }},
    {.section = "team", .name = "max_connections_per_address", .kind = ValueKind::integer, .min = 1,
     .max = 100000, .default_text = "64",
     .help = "Connections one client address may hold open; more are answered 429 and closed (behind "
             "a proxy every connection comes from the proxy's address).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.max_connections_per_address = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.max_connections_per_address); }},
    {.section = "team", .name = "unauthenticated_per_minute", .kind = ValueKind::integer, .min = 1,
     .max = 100000, .default_text = "120",
     .help = "Requests without sign-in (the OAuth endpoints, `/mcp` without a bearer token) one client "
             "address may make per minute; more get 429 with Retry-After.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.team.unauthenticated_per_minute = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.team.unauthenticated_per_minute); }},
};

}  // namespace

std::span<const ConfigKeySpec> team_config_key_specs() { return kTeamKeySpecs; }

}  // namespace kg::config
