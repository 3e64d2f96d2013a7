// POST /execute's 200 answer (docs/sandbox-api.md): the command's outcome and, when the request
// had "read_file", that file as the command left it. kode-gopher-sandbox encodes it; the daemon's
// SandboxClient decodes it. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace kg::wire::sandbox_api {

// "file": {"path", "exists", "content_base64"?, "error"?}.
struct FileAfterCommand {
  std::string path;     // as requested
  bool exists = false;  // false: no such file (content and error empty)
  std::string content;  // the bytes, when exists and error is empty (base64 on the wire)
  std::string error;    // why it was not read: outside the workdir, a directory, too large
  bool operator==(const FileAfterCommand&) const = default;
};

struct ExecuteAnswer {
  std::string stdout_text;  // the server's truncation marker included
  std::string stderr_text;
  int exit_code = 0;  // 128 + signal when killed by a signal
  int signal = 0;     // 0 unless killed by a signal
  bool timed_out = false;
  bool cpu_limit_exceeded = false;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::uint64_t stdout_discarded_bytes = 0;  // printed past the limit and not kept
  std::uint64_t stderr_discarded_bytes = 0;
  std::uint64_t duration_ms = 0;
  std::optional<FileAfterCommand> file;
  bool operator==(const ExecuteAnswer&) const = default;
};

// Compact JSON in the contract's member order; output and paths that are not valid UTF-8 are
// repaired (U+FFFD); "content_base64" is written when the file exists and has no error.
std::string encode_execute_answer(const ExecuteAnswer& answer);

// Reads an answer leniently, as from any runtime of the contract: a member that is missing or
// of another type reads as empty, 0 or false, and "file" only when it is an object. A
// "content_base64" that is not base64 becomes the file's error ("the sandbox sent it as invalid
// base64: ..."), since the command's outcome still stands. Throws MalformedMessage "the
// sandbox's answer ..." when the text is not a JSON object within lib/json's sandbox limits.
ExecuteAnswer decode_execute_answer(std::string_view text);
// The same for an answer object already read (the "result" line of a streamed answer,
// execute_stream.hpp).
ExecuteAnswer execute_answer_of(const rapidjson::Value& object);

}  // namespace kg::wire::sandbox_api
