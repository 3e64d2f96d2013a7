// A sign-in between the client's /oauth/authorize and the upstream provider's answer at
// /oauth/callback, keyed by the state the daemon sent upstream. Kept in memory only (a daemon
// restart in those few seconds just makes the user start again), never in SQLite, since it
// holds the daemon's upstream PKCE verifier.
#pragma once

#include <cstdint>
#include <string>

namespace kg::team::oauth {

struct PendingAuthorization {
  // The client's request, answered once the user is known.
  std::string client_id, redirect_uri, code_challenge, client_state, resource, scope;
  // redirect_uri as the request gave it ("" when it relied on the only registered one): the
  // token request must repeat exactly that (RFC 6749 §4.1.3).
  std::string requested_redirect_uri;
  // The daemon's own sign-in at the upstream provider.
  std::string upstream_verifier, nonce;
  // SHA-256 of the secret in the browser's kg_oauth_signin cookie: only the browser that started
  // the sign-in may finish it (a provider link forwarded to someone else fails at the callback).
  std::string browser_binding;
  std::int64_t expires_at = 0;
};

// A signed-in user asked to approve the client (the confused-deputy defence: the daemon signs
// everyone in upstream with one client ID, so it asks the user itself whether this client may
// act for them before any code leaves). Keyed by a random consent id; in memory only.
struct PendingConsent {
  PendingAuthorization authorization;
  std::string user_id, email, client_name;
  std::string csrf;  // echoed by the consent form
  std::int64_t expires_at = 0;
};

}  // namespace kg::team::oauth
