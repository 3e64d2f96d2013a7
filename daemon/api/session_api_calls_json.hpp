// GET /v1/sessions/{id}/api_calls (docs/daemon-api.md; docs/api-policy.md, "The audit"): the
// Google API requests a session's calls made, read back from the store after the fact, open or
// closed session alike. The Unix socket serves only the daemon's own user (api_server.cpp checks
// the peer), who may read any session's audit, as with GET /v1/sessions; team mode's users have
// no /v1 routes. Called from API threads.
#pragma once

#include <cstddef>
#include <string>

#include "api_context.hpp"

namespace kg::api {

// How many requests the answer lists at most (the first ones recorded); count says how many
// there are in all.
inline constexpr std::size_t kSessionApiCallsListed = 1000;

// The answer's JSON (lib/wire/daemon_api/session_api_calls.hpp). Throws
// session::SessionNotFoundError (404 not_found) for a session the daemon never had, and the
// store's errors.
std::string session_api_calls_json(ApiContext& context, const std::string& session_id);

}  // namespace kg::api
