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
  bool operator==(const ExecuteRequest&) const = default;
};

// Compact JSON: "code" or "files", then extra_imports, runtime, timeout_ms, limits and client
// when given (limits when any is). Strings are written as they are.
std::string encode_execute_request(const ExecuteRequest& request);

// Reads a body already read as one JSON object (daemon/api reads it with lib/json's request
// limits). Throws MalformedMessage naming the first member out of shape, in the order "code" or
// "files", extra_imports, timeout_ms, limits, runtime, client.
ExecuteRequest decode_execute_request(const rapidjson::Value& object);

}  // namespace kg::wire::daemon_api
