// What the authorization server is configured with: the [oauth] section of the daemon's config,
// plus where the daemon is reached ([http] public_url) and its state directory (the sealing
// key's home). The daemon's config code fills it; nothing here reads files at construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kg::team {

struct OAuthSettings {
  std::string public_url;  // "https://mcp.example.com", no trailing slash; the resource is <it>/mcp
  std::string state_dir;   // the daemon's state directory: oauth-sealing.key lives here (0600)
  std::string issuer;      // the upstream OpenID Connect issuer
  std::string client_id;   // the daemon's client at the upstream provider
  std::string client_secret_file;  // optional (public client when empty); read when needed
  std::vector<std::string> scopes{"openid", "email",
                                  "https://www.googleapis.com/auth/cloud-platform"};
  std::vector<std::string> allowed_users;    // emails, matched case-insensitively
  std::vector<std::string> allowed_domains;  // email domains; both empty: nobody is let in
  std::int64_t access_token_ttl_s = 900;
  std::int64_t refresh_token_ttl_s = 604800;
  // Dynamic registration is open to anyone ([oauth] registrations_per_hour per client address):
  // a registration nobody started a sign-in with is dropped after unstarted_registration_ttl_s,
  // one no sign-in completed through after unused_registration_ttl_s, and at most
  // max_unused_registrations wait at once (more get 429). Not config keys: fixed for a
  // deployment, lowered by tests.
  std::uint32_t registrations_per_hour = 30;
  std::int64_t max_unused_registrations = 1000;
  std::int64_t unused_registration_ttl_s = 86400;
  std::int64_t unstarted_registration_ttl_s = 600;
};

}  // namespace kg::team
