#include "team_settings.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>

namespace kg::config {
namespace {

std::string listen_host(const std::string& listen) {
  const auto colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host;
}

// "scheme://authority" with nothing after but an optional '/': the origin the daemon is at.
bool is_origin_url(const std::string& url) {
  const bool https = url.starts_with("https://");
  if (!https && !url.starts_with("http://")) return false;
  const std::string rest = url.substr(https ? 8 : 7);
  const auto slash = rest.find('/');
  if (slash == 0 || rest.empty()) return false;
  if (slash != std::string::npos && slash != rest.size() - 1) return false;
  return rest.find_first_of("?#@ ") == std::string::npos;
}

}  // namespace

bool is_loopback_listen(const std::string& listen) {
  const std::string host = listen_host(listen);
  if (host == "localhost" || host == "::1") return true;
  in_addr address{};
  // An IPv4 literal in 127.0.0.0/8, not a name that starts like one ("127.x.example.com").
  return ::inet_pton(AF_INET, host.c_str(), &address) == 1 &&
         (ntohl(address.s_addr) >> 24) == 127;
}

std::string effective_issuer(const OAuthConfig& oauth) {
  return oauth.issuer.empty() ? "https://accounts.google.com" : oauth.issuer;
}

std::vector<std::string> effective_scopes(const OAuthConfig& oauth) {
  if (!oauth.scopes.empty()) return oauth.scopes;
  return {"openid", "email", "https://www.googleapis.com/auth/cloud-platform"};
}

std::string effective_public_url(const HttpConfig& http) {
  if (!http.public_url.empty()) {
    std::string url = http.public_url;
    if (url.ends_with('/')) url.pop_back();
    return url;
  }
  return (http.tls_certificate.empty() ? "http://" : "https://") + http.listen;
}

std::vector<ConfigIssue> team_settings_issues(const DaemonConfig& config, const std::string& file) {
  using Severity = ConfigIssue::Severity;
  std::vector<ConfigIssue> issues;
  const HttpConfig& http = config.http;
  if (http.listen.empty()) return issues;
  const bool loopback = is_loopback_listen(http.listen);
  const bool tls = !http.tls_certificate.empty();
  if (tls != !http.tls_key.empty()) {
    issues.push_back({Severity::error, file, tls ? "http.tls_key" : "http.tls_certificate",
                      "HTTPS needs both tls_certificate and tls_key; set the other one, or "
                      "remove both for plain HTTP"});
  }
  if (!http.public_url.empty() && !is_origin_url(http.public_url)) {
    issues.push_back({Severity::error, file, "http.public_url",
                      "must be http(s)://host[:port] with no path, got \"" + http.public_url +
                          "\" (the MCP endpoint is <public_url>/mcp)"});
  }
  if (!tls && !loopback && !http.trusted_proxy) {
    issues.push_back({Severity::error, file, "http.listen",
                      http.listen + " is not loopback: serve HTTPS there (tls_certificate and "
                      "tls_key), or set trusted_proxy = true when TLS ends at a proxy in front"});
  }
  if (http.auth == "none") {
    if (!loopback) {
      issues.push_back({Severity::error, file, "http.auth",
                        "none lets everyone who can connect run code as one user, so it is "
                        "accepted only on a loopback listen (127.0.0.1:PORT); use oauth"});
    }
    return issues;
  }
  if (config.oauth.client_id.empty()) {
    issues.push_back({Severity::error, file, "oauth.client_id",
                      "is required with [http] auth = oauth: register an OAuth client at " +
                          effective_issuer(config.oauth) + " with redirect URI " +
                          effective_public_url(http) + "/oauth/callback (docs/team-mode.md)"});
  }
  const std::string issuer = effective_issuer(config.oauth);
  if (!issuer.starts_with("https://") && !issuer.starts_with("http://127.0.0.1") &&
      !issuer.starts_with("http://localhost")) {
    issues.push_back({Severity::error, file, "oauth.issuer",
                      "must be the issuer's https:// URL (http:// only on loopback, for tests), "
                      "got \"" + issuer + "\""});
  }
  const auto scopes = effective_scopes(config.oauth);
  if (std::find(scopes.begin(), scopes.end(), "openid") == scopes.end()) {
    issues.push_back({Severity::error, file, "oauth.scopes",
                      "must include openid: the daemon learns who signed in from the ID token"});
  }
  if (config.oauth.allowed_users.empty() && config.oauth.allowed_domains.empty()) {
    issues.push_back({Severity::warning, file, "oauth.allowed_users",
                      "allowed_users and allowed_domains are both empty, so nobody can sign in"});
  }
  if (config.team.run_as != "user") {
    if (config.team.user_token_mode != "sealed") {
      issues.push_back({Severity::warning, file, "team.user_token_mode",
                        config.team.user_token_mode + " has no effect with run_as = " +
                            config.team.run_as + ": programs get the [credentials] plugin's "
                            "identity, in that plugin's own mode; remove user_token_mode"});
    }
    return issues;
  }
  if (config.team.user_token_mode != "sealed") return issues;
  // Sealed user tokens need the daemon's egress proxy between the sandbox and Google.
  if (config.sandbox_provider == "kubernetes" && config.kubernetes_egress_proxy_address.empty()) {
    issues.push_back({Severity::warning, file, "team.user_token_mode",
                      "sealed: programs get only a placeholder token, and without [kubernetes] "
                      "egress_proxy_address no egress proxy of this daemon puts the user's token "
                      "in its place, so their Google calls fail; set egress_proxy_address "
                      "(docs/kubernetes.md), or user_token_mode = access-token"});
  } else if (config.sandbox_provider != "kubernetes" && config.sandbox_network == "egress") {
    issues.push_back({Severity::warning, file, "team.user_token_mode",
                      "sealed: programs get only a placeholder token, and [sandbox] network = "
                      "egress does not send them through the egress proxy that puts the user's "
                      "token in its place, so their Google calls fail; set network = allowlist "
                      "(or auto), or user_token_mode = access-token"});
  }
  return issues;
}

bool runs_as_signed_in_users(const DaemonConfig& config) {
  return !config.http.listen.empty() && config.http.auth == "oauth" && config.team.run_as == "user";
}

void apply_http_listen(DaemonConfig& config, const std::string& listen) {
  config.http.listen = listen;
  std::vector<ConfigIssue> errors;
  for (auto& issue : team_settings_issues(config, "--http " + listen)) {
    if (issue.severity == ConfigIssue::Severity::error) errors.push_back(std::move(issue));
  }
  if (errors.empty()) return;
  std::string message = "Invalid team-mode settings:";
  for (const auto& error : errors) message += "\n  " + error.to_string();
  throw ConfigError(message, std::move(errors));
}

}  // namespace kg::config
