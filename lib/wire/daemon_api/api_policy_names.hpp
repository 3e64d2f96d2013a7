// What a Google Cloud project ID and a Cloud Storage bucket name may look like, for the API
// policy's allowlists (docs/api-policy.md): the daemon's [api_policy] keys, a call's
// "api_policy" (daemon API, `kode-gopher exec`, MCP execute_go_code) all check their names here,
// so a typo is refused where it is written instead of silently matching nothing. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kg::wire::daemon_api {

// Why `name` is not a project: nullopt when it is one. Accepted: a project ID (6 to 30 lowercase
// letters, digits and '-', starting with a letter, not ending with '-'), optionally after a
// "domain:" prefix (legacy domain-scoped projects), or a project number (digits).
std::optional<std::string> project_name_problem(std::string_view name);

// Why `name` is not a bucket name: nullopt when it is one. Accepted: 3 to 222 characters of
// lowercase letters, digits, '-', '_' and '.', starting and ending with a letter or digit, each
// dot-separated part at most 63 characters.
std::optional<std::string> bucket_name_problem(std::string_view name);

}  // namespace kg::wire::daemon_api
