// The identity one credentialed /execute command runs as: a short-lived Google access token and
// what is known about whose it is (docs/contracts.md §1 "credentials"). Parsed from the request by
// parse_command_credentials(); served to the command by MetadataEmulator. Never a refresh token,
// a private key or a credentials file: the host mints, the sandbox only hands out.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <string>

namespace kg::sandbox {

struct MetadataIdentity {
  std::string access_token;
  std::chrono::system_clock::time_point expiry;
  std::string email;          // empty: unknown (served as "default")
  std::string project;        // empty: unknown (project/project-id answers 404)
  std::string quota_project;  // empty: unknown
};

// The "credentials" member of an /execute body: {"access_token", "expiry" (RFC 3339), "email"?,
// "project"?, "quota_project"?}. Throws HttpError 400 naming the problem when it is not that
// shape, the token is empty, the expiry is not an RFC 3339 time with a zone, or the token has
// already expired at `now`.
MetadataIdentity parse_command_credentials(const rapidjson::Value& credentials,
                                           std::chrono::system_clock::time_point now);

}  // namespace kg::sandbox
