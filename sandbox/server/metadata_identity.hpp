// The identity one credentialed /execute command runs as: a short-lived Google access token and
// what is known about whose it is (docs/contracts.md §1 "credentials"). Made from the request's
// "credentials" (whose shape lib/wire/sandbox_api checked) by identity_for_command(); served to the
// command by MetadataEmulator. Never a refresh token, a private key or a credentials file: the
// host mints, the sandbox only hands out.
#pragma once

#include <chrono>
#include <string>

#include "sandbox_api/execute_request.hpp"

namespace kg::sandbox {

struct MetadataIdentity {
  std::string access_token;
  std::chrono::system_clock::time_point expiry;
  std::string email;          // empty: unknown (served as "default")
  std::string project;        // empty: unknown (project/project-id answers 404)
  std::string quota_project;  // empty: unknown
};

// The identity the decoded `credentials` name. Throws HttpError 400 when the token has already
// expired at `now` (or, should a caller skip the decoder, the expiry is not RFC 3339).
MetadataIdentity identity_for_command(const wire::sandbox_api::ExecuteCredentials& credentials,
                                      std::chrono::system_clock::time_point now);

}  // namespace kg::sandbox
