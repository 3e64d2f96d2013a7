// The lines of a streamed /execute answer (docs/sandbox-api.md, "Streamed output"): while the
// command runs, {"output": {...}} pieces of what it prints and {"output_dropped": {...}} when the
// server let some go; then one {"result": ExecuteAnswer} or {"error": {"detail"}}. The daemon API
// streams the same "output" and "output_dropped" objects to its clients (docs/daemon-api.md), so
// every reader of them (the daemon, the CLI, the MCP shim) uses these functions.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "execute_answer.hpp"
#include "json_fields.hpp"

namespace kg::wire::sandbox_api {

// "stream": {"max_bytes"?, "skip_prefix"?} in the /execute body: stream the output, at most
// max_bytes of it in all (both streams), leaving out lines that start with skip_prefix.
inline constexpr std::uint64_t kDefaultStreamMaxBytes = 1ull << 20;
inline constexpr std::uint64_t kMaxStreamMaxBytes = 64ull << 20;
// A line longer than this is streamed cut (its head, with "cut": true).
inline constexpr std::size_t kMaxStreamedLineBytes = 8 * 1024;

struct StreamRequest {
  std::uint64_t max_bytes = kDefaultStreamMaxBytes;
  std::string skip_prefix;  // empty: every line is streamed
  bool operator==(const StreamRequest&) const = default;
};

// {"output": {"stream": "stdout"|"stderr", "text", "cut"?: true}}: a piece of one stream, at
// most one line; it ends with '\n' unless the line was still being printed (the rest follows
// in the next piece) or was cut (the rest of that line is not streamed).
struct OutputPiece {
  bool is_stderr = false;
  std::string text;  // valid UTF-8 once encoded
  bool cut = false;
  bool operator==(const OutputPiece&) const = default;
};

// Why output was not streamed: the reader fell behind (the server queues a bounded amount and
// drops the rest rather than stall the program), or the stream's max_bytes was reached.
enum class DropReason { slow_reader, limit };

// {"output_dropped": {"bytes", "reason": "slow_reader"|"limit"}}: bytes printed and not
// streamed (they are still in the final result's head and tail where those keep them).
struct OutputDropped {
  std::uint64_t bytes = 0;
  DropReason reason = DropReason::slow_reader;
  bool operator==(const OutputDropped&) const = default;
};

// {"error": {"detail"}}: the command could not be run or waited for after streaming began.
struct StreamError {
  std::string detail;
  bool operator==(const StreamError&) const = default;
};

using ExecuteStreamLine = std::variant<OutputPiece, OutputDropped, ExecuteAnswer, StreamError>;

std::string_view to_string(DropReason reason) noexcept;

// One line each, without the trailing '\n'.
std::string encode_output_piece(const OutputPiece& piece);
std::string encode_output_dropped(const OutputDropped& dropped);
std::string encode_stream_result(const ExecuteAnswer& answer);
std::string encode_stream_error(std::string_view detail);

// Reads one line (lib/json's sandbox limits). nullopt for a line of a kind this reader does not
// know (a newer server's), which readers skip. Throws MalformedMessage "the sandbox's answer
// ..." for a line that is not a JSON object or whose known member has the wrong shape.
std::optional<ExecuteStreamLine> decode_execute_stream_line(std::string_view line);

// The "stream" member of an /execute body; nullopt when absent. Throws MalformedMessage.
std::optional<StreamRequest> read_stream_request(const rapidjson::Value& body);
void write_stream_request(JsonWriter& writer, const StreamRequest& request);

}  // namespace kg::wire::sandbox_api
