// The body of POST /v1/execute and /v1/sessions/{id}/execute (docs/daemon-api.md,
// "ExecuteRequest"): written by the CLI (`kode-gopher exec`) and the MCP tool execute_go_code,
// read by the daemon's API server (daemon/api/execute_request_parser.cpp), which turns it into a
// call. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::wire::daemon_api {

// "limits": the call's own limits, each a positive integer the daemon checks against its maxima.
struct ExecuteLimits {
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint32_t> pids;
  std::optional<std::uint32_t> cpu_seconds;
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint32_t> open_files;
  std::optional<std::uint64_t> output_bytes;
  bool operator==(const ExecuteLimits&) const = default;
};

// "api_policy": the call's own narrowing of the daemon's API policy (docs/api-policy.md).
// Each member may only narrow what the daemon's [api_policy] allows: read_only true
// turns read-only on (false asks for nothing: it cannot turn the daemon's off); projects and
// buckets are allowlists intersected with the daemon's (a name the daemon does not allow is an
// error, never a widening). Lists are non-empty, of names api_policy_names.hpp accepts.
struct ExecuteApiPolicy {
  std::optional<bool> read_only;
  std::optional<std::vector<std::string>> projects;
  std::optional<std::vector<std::string>> buckets;
  bool empty() const { return !read_only && !projects && !buckets; }
  bool operator==(const ExecuteApiPolicy&) const = default;
};

// Why `policy` is out of shape (an empty list, a name that is not a project or bucket), naming
// the member: nullopt when it is fine. The decoder throws it; the CLI and the MCP tool check
// with it before they send.
std::optional<std::string> api_policy_problem(const ExecuteApiPolicy& policy);

// Reads the "api_policy" member's value (the MCP tool reads its argument of that name with it).
// Throws MalformedMessage naming what is out of shape: an unknown key, a value of the wrong
// type, or what api_policy_problem finds.
ExecuteApiPolicy decode_api_policy(const rapidjson::Value& value);

struct ExecuteRequest {
  // The program: exactly one of "code" (the source of main.go) and "files" (path → source, in
  // order, at least one).
  std::optional<std::string> code;
  std::vector<std::pair<std::string, std::string>> files;
  std::optional<std::vector<std::string>> extra_imports;  // import paths beyond the lockfile
  std::optional<std::string> runtime;                     // absent or empty: the session's
  std::optional<std::uint32_t> timeout_ms;
  ExecuteLimits limits;
  std::optional<std::string> client;  // who asks (one-shot route only): "cli", an MCP client
  ExecuteApiPolicy api_policy;        // written only when not empty
  // "action": what to do with the program: "run" (absent: the same), "test" (go test -json) or
  // "vet" (go vet -json); docs/daemon-api.md. The decoder accepts only these three.
  std::optional<std::string> action;
  bool operator==(const ExecuteRequest&) const = default;
};

// Compact JSON: "code" or "files", then extra_imports, runtime, timeout_ms, limits, client,
// api_policy and action when given (limits and api_policy when any member is). Strings are written as they are.
std::string encode_execute_request(const ExecuteRequest& request);

// Reads a body already read as one JSON object (daemon/api reads it with lib/json's request
// limits). Throws MalformedMessage naming the first member out of shape, in the order "code" or
// "files", extra_imports, timeout_ms, limits, runtime, client, api_policy, action.
ExecuteRequest decode_execute_request(const rapidjson::Value& object);

// The checks decode makes that do not depend on JSON types, for a request built in memory (team
// mode's MCP endpoint hands the daemon the value itself): exactly one of code and files, files
// not empty, api_policy and action in shape. Throws MalformedMessage with decode's wording.
void check_execute_request(const ExecuteRequest& request);

// Why `action` is not one the daemon knows, saying which are: nullopt when it is one.
std::optional<std::string> action_problem(std::string_view action);

}  // namespace kg::wire::daemon_api
