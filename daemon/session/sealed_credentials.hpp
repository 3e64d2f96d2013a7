// Sealed credentials (docs/credentials.md), and what a program holds in every mode: a call
// whose credentials come in mode sealed hands
// its sandbox a placeholder token, random per call and worthless anywhere else, with the real
// token's expiry, and keeps the real token for the sandbox's egress proxy, which puts it in the
// placeholder's place on requests to Google API hosts. The real token never reaches the sandbox.
#pragma once

#include <optional>
#include <string>

#include "credentials_plugin.hpp"
#include "egress_call.hpp"

namespace kg::session {

// A fresh placeholder: "kg-sealed." and 43 characters of base64url (32 random bytes from the
// system's CSPRNG), shaped like a bearer token so every client library sends it as one.
std::string new_placeholder_token();

// For credentials in mode sealed: replaces their token by a new placeholder and returns what
// the egress proxy needs (placeholder, real token, expiry). nullopt, with credentials untouched,
// for any other mode or none.
std::optional<sandbox::SealedToken> seal_for_sandbox(
    std::optional<plugin::RunCredentials>& credentials);

// What mode sealed means for a daemon's sandboxes (`auth status`, gcp_auth_status): whether
// anything puts the real token in for the provider and [sandbox] network in force.
// `kubernetes_egress`: [kubernetes] egress_proxy_address is set (the pods' egress goes through
// the daemon's proxy).
std::string sealed_mode_note(const std::string& provider, const std::string& network,
                             bool kubernetes_egress = false);

// What a program holds in the other modes that give it credentials, one line each (`auth
// status`, GET /v1/auth, gcp_auth_status: "program_holds"; docs/security.md says the same):
// access-token and workload hand it a real token, forwarded also the ADC file. Empty for
// sealed (sealed_mode_note says it) and none. This file is the one source of these sentences.
std::string unsealed_mode_note(plugin::CredentialMode mode);

}  // namespace kg::session
