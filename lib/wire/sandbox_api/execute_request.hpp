// POST /execute's body (docs/sandbox-api.md): what the daemon's SandboxClient sends and
// kode-gopher-sandbox's /execute route runs. encode_execute_request writes it; decode_execute_request
// reads it from a client that may be anyone and refuses what the server must not run, with the
// messages the contract's clients see in {"detail": ...}. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "execute_stream.hpp"

namespace kg::wire::sandbox_api {

inline constexpr std::uint64_t kDefaultTimeoutMs = 60'000;
inline constexpr std::uint64_t kMaxTimeoutMs = 3'600'000;
inline constexpr std::uint64_t kDefaultReadFileBytes = 1ull << 20;
// The largest read_file.max_bytes accepted (the answer carries the file as base64).
inline constexpr std::uint64_t kMaxReadFileBytes = 16ull << 20;

// "limits": rlimits of the command; 0 leaves one as the server inherited it.
struct ExecuteLimits {
  std::uint64_t cpu_seconds = 0;      // at most 86400
  std::uint64_t file_size_bytes = 0;  // at most INT64_MAX
  std::uint64_t open_files = 0;       // 0, or 16 to 1048576
  bool operator==(const ExecuteLimits&) const = default;
};

// "read_file": one workdir file read the moment the command ends, answered in the same response.
struct ReadFileRequest {
  std::string path;  // relative to the workdir; non-empty, no NUL
  std::uint64_t max_bytes = kDefaultReadFileBytes;
  bool operator==(const ReadFileRequest&) const = default;
};

// "credentials": a short-lived access token for this command alone (docs/contracts.md §1). Every
// value is printable ASCII; email, project and quota_project are empty when unknown (then not
// sent).
struct ExecuteCredentials {
  std::string access_token;  // non-empty
  std::string expiry;        // RFC 3339 with a zone, as sent (the server checks it is ahead)
  std::string email;
  std::string project;
  std::string quota_project;
  bool operator==(const ExecuteCredentials&) const = default;
};

struct ExecuteRequest {
  std::string command;  // run as `sh -c`; non-empty, no NUL
  std::vector<std::pair<std::string, std::string>> env;  // in order; names non-empty, no '=' or NUL
  std::uint64_t timeout_ms = kDefaultTimeoutMs;           // 1 to kMaxTimeoutMs
  std::optional<std::uint64_t> output_limit_bytes;        // per stream; nullopt: the server's cap
  ExecuteLimits limits;
  std::optional<ReadFileRequest> read_file;
  bool clean_state = false;
  std::optional<ExecuteCredentials> credentials;
  // "prestart": {"arguments": [...]}: the command takes its call on stdin, so the server may
  // start it ahead of the call (docs/sandbox-api.md, "Prestarted commands"). The arguments go
  // with the call; each is non-empty of NUL. nullopt: an ordinary command.
  std::optional<std::vector<std::string>> prestart_arguments;
  // "stream": answer with NDJSON lines while the command runs (execute_stream.hpp); nullopt:
  // one JSON answer when it ends.
  std::optional<StreamRequest> stream;
  bool operator==(const ExecuteRequest&) const = default;
};

// The body as compact JSON: command, timeout_ms, output_limit_bytes (when set), clean_state (when
// true), limits, read_file, credentials, prestart, stream (when set), env. Strings are written as they are.
std::string encode_execute_request(const ExecuteRequest& request);

// Reads a body (lib/json's request limits: valid UTF-8, bounded depth). Throws MalformedMessage
// naming the first problem found: the body ("The /execute body ..."), then command, env,
// timeout_ms, output_limit_bytes, limits, clean_state, read_file, credentials, prestart and stream,
// in that order.
ExecuteRequest decode_execute_request(std::string_view body);

}  // namespace kg::wire::sandbox_api
