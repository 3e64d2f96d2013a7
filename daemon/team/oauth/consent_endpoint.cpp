// AuthorizationServer's consent step (authorization_server.hpp): after the upstream sign-in and
// the allowlist, and before a code goes to the client, the user approves the client by name and
// redirect host (once per user and client while the daemon runs). The daemon signs every client
// in upstream with its own client ID, so the provider's consent screen cannot say which client
// is asking: without this page, a link from anyone who registered a client would hand them the
// user's tokens (MCP security best practices, "confused deputy").
#include <Poco/URI.h>

#include "authorization_server.hpp"
#include "browser_binding.hpp"
#include "oauth_replies.hpp"
#include "oauth_secrets.hpp"
#include "pending_authorization.hpp"
#include "url_form.hpp"

namespace kg::team {
namespace {

constexpr std::int64_t kConsentSeconds = 600;

std::string approval_key(const std::string& user_id, const std::string& client_id) {
  return user_id + " " + client_id;
}

HttpReply consent_page(const std::string& consent_id, const std::string& csrf,
                       const std::string& client_name, const std::string& redirect_host,
                       const std::string& email, const std::string& public_url) {
  using oauth::html_escape;
  HttpReply reply;
  reply.status = 200;
  reply.content_type = "text/html; charset=utf-8";
  reply.headers = {{"Cache-Control", "no-store"},
                   {"X-Frame-Options", "DENY"},
                   {"Content-Security-Policy", "default-src 'none'; form-action 'self'; frame-ancestors 'none'"}};
  reply.body =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Allow " +
      html_escape(client_name) + "?</title></head>\n<body>\n<h1>Allow " +
      html_escape(client_name) + " to use kode-gopher as you?</h1>\n<p>You are signed in as <b>" +
      html_escape(email) + "</b>. The application <b>" + html_escape(client_name) +
      "</b> asks to run Go programs on " + html_escape(public_url) +
      " as you, with your Google identity. Its sign-in goes back to <b>" +
      html_escape(redirect_host) + "</b>.</p>\n<p>Allow it only if you started this sign-in "
      "from that application.</p>\n<form method=\"post\" action=\"/oauth/consent\">\n"
      "<input type=\"hidden\" name=\"consent_id\" value=\"" + html_escape(consent_id) + "\">\n"
      "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(csrf) + "\">\n"
      "<button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button>\n"
      "<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>\n</form>\n"
      "</body></html>\n";
  return reply;
}

}  // namespace

HttpReply AuthorizationServer::ask_consent(oauth::PendingAuthorization authorization,
                                           const std::string& user_id, const std::string& email) {
  const std::optional<store::OAuthClientRecord> client = find_client(authorization.client_id);
  bool approved = false;
  {
    std::lock_guard lock(pending_mutex_);
    approved = approved_.count(approval_key(user_id, authorization.client_id)) != 0;
  }
  if (approved) return issue_code(authorization, user_id, email);
  const std::string consent_id = oauth::random_secret(24);
  oauth::PendingConsent consent;
  consent.client_name = client && !client->client_name.empty() ? client->client_name
                                                                : authorization.client_id;
  const std::string redirect_host = Poco::URI(authorization.redirect_uri).getAuthority();
  consent.user_id = user_id;
  consent.email = email;
  consent.csrf = oauth::random_secret(24);
  consent.expires_at = clock_() + kConsentSeconds;
  const std::string client_name = consent.client_name;
  const std::string csrf = consent.csrf;
  consent.authorization = std::move(authorization);
  {
    std::lock_guard lock(pending_mutex_);
    const std::int64_t now = clock_();
    for (auto it = consents_.begin(); it != consents_.end();) {
      it = it->second.expires_at < now ? consents_.erase(it) : std::next(it);
    }
    consents_.emplace(consent_id, std::move(consent));
  }
  return consent_page(consent_id, csrf, client_name, redirect_host, email, settings_.public_url);
}

HttpReply AuthorizationServer::consent(const HttpExchange& request) {
  const oauth::FormFields form = oauth::parse_form(request.body);
  std::optional<oauth::PendingConsent> consent;
  {
    std::lock_guard lock(pending_mutex_);
    const auto found = consents_.find(form.get("consent_id"));
    if (found != consents_.end()) {
      consent = std::move(found->second);
      consents_.erase(found);
    }
  }
  if (!consent || consent->expires_at < clock_()) {
    return oauth::page_reply(400, "Sign-in expired",
                             "This approval is unknown, was answered already, or took longer "
                             "than 10 minutes. Start the sign-in again from your MCP client.");
  }
  // The same browser that started the sign-in, answering the page this server showed it.
  if (oauth::sha256_hex(oauth::signin_cookie_value(request)) !=
          consent->authorization.browser_binding ||
      form.get("csrf") != consent->csrf) {
    logger_.log(plugin::LogLevel::warn, "oauth: an approval came from another browser or page; refused");
    return oauth::page_reply(400, "Sign-in started elsewhere",
                             "This approval did not come from the browser that started the "
                             "sign-in. Start it again from your MCP client on this machine.");
  }
  const oauth::PendingAuthorization& authorization = consent->authorization;
  if (form.get("decision") != "allow") {
    logger_.log(plugin::LogLevel::info, "oauth: " + consent->email + " denied client " +
                                            authorization.client_id);
    std::vector<std::pair<std::string, std::string>> fields = {
        {"error", "access_denied"}, {"error_description", "the user did not allow this client"}};
    if (!authorization.client_state.empty()) fields.emplace_back("state", authorization.client_state);
    fields.emplace_back("iss", settings_.public_url);
    return oauth::redirect_reply(oauth::with_query(authorization.redirect_uri, fields));
  }
  {
    std::lock_guard lock(pending_mutex_);
    approved_.insert(approval_key(consent->user_id, authorization.client_id));
  }
  return issue_code(authorization, consent->user_id, consent->email);
}

}  // namespace kg::team
