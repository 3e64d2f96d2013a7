// The one way JSON from outside the process becomes a value (docs/security.md, "JSON from
// outside"): HTTP bodies, MCP messages, what a sandbox produces, upstream OAuth and OIDC replies,
// Kubernetes API replies, credential files. Every such text is read here, and nowhere else
// (tests/lint/check_json_parsers.py fails the build's tests on any other parse call).
//
// RapidJSON parses recursively unless told kParseIterativeFlag, and even then everything that
// walks a DOM recurses: Writer through Accept, CopyFrom, pretty printing. A ~300 KB body of '['
// once overflowed a thread's stack that way. So every text is read iteratively (the parser keeps
// its own stack on the heap), refused past a size and a nesting depth, and its strings come out
// as valid UTF-8 (refused or repaired, as the caller asks), so that walking the value afterwards
// is bounded too.
//
// A DOM's destruction does not recurse: Documents use MemoryPoolAllocator, whose kNeedFree is
// false, so ~GenericValue frees nothing per value (checked against RapidJSON 1.1's document.h).
// Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kg::json {

// What to do with a string or key that is not valid UTF-8 (including a \u escape naming a lone
// UTF-16 surrogate, which RapidJSON 1.1 decodes into the invalid bytes ED A0..BF xx).
enum class InvalidUtf8 {
  refuse,  // the text is refused (requests, replies from peers that must speak UTF-8)
  repair,  // each bad byte becomes U+FFFD (a program's output, carried to the caller)
};

// The bounds a text is read within. Every reader names its own, from the presets below.
struct ReadLimits {
  std::size_t max_bytes;  // the whole text
  std::size_t max_depth;  // arrays and objects, the outermost value being level 1
  InvalidUtf8 invalid_utf8;
};

// How deep a sandbox's result may nest. Far deeper than any real API object, and shallow enough
// that code walking a parsed value recursively stays far from the end of any thread's stack.
inline constexpr std::size_t kMaxResultDepth = 128;

// Presets, one per kind of source.
// A request to the daemon: the daemon API's bodies, MCP messages (stdio and HTTP), OAuth forms
// sent as JSON (dynamic client registration). The HTTP servers cap a body before it is read
// ([daemon] and [http] max_request_bytes, at most 1 GiB); this is the backstop.
inline constexpr ReadLimits kRequestLimits{1024 * 1024 * 1024, 64, InvalidUtf8::refuse};
// What a sandbox produced: result.json, the sandbox server's answers, runner events.
inline constexpr ReadLimits kSandboxOutputLimits{64 * 1024 * 1024, kMaxResultDepth,
                                                 InvalidUtf8::repair};
// The daemon's own answers as the CLI reads them: a result sits inside the call's object, which
// sits inside a line of the progress stream; the rest is room.
inline constexpr ReadLimits kDaemonAnswerLimits{256 * 1024 * 1024, kMaxResultDepth + 8,
                                                InvalidUtf8::repair};
// A reply from an upstream server the daemon calls: OAuth token endpoints, OIDC discovery and
// JWKS, client metadata documents, Google's IAM and STS, the Kubernetes API.
inline constexpr ReadLimits kUpstreamReplyLimits{32 * 1024 * 1024, 64, InvalidUtf8::refuse};
// A small file a person or a tool wrote: credential files, a JWT's parts.
inline constexpr ReadLimits kFileLimits{4 * 1024 * 1024, 32, InvalidUtf8::refuse};

// Why a text was refused, with the position where reading stopped (line and column from 1,
// columns in bytes).
struct JsonRefusal {
  enum class Kind { too_large, too_deep, invalid_utf8, lone_surrogate, syntax };
  Kind kind = Kind::syntax;
  std::size_t offset = 0;
  std::size_t line = 1;
  std::size_t column = 1;
  std::string reason;  // RapidJSON's own message for syntax errors; else what the limit was

  // Reads as the end of a sentence about the text: "is not valid JSON: Invalid value. (line 1,
  // column 9)", "nests deeper than 64 levels (line 1, column 65)", "is larger than 16777216
  // bytes", "has a string that is not UTF-8 (line 2, column 7)".
  std::string describe() const;
  // "line L, column C".
  std::string position() const;
};

// A refused text, for callers that throw: what() is "<what> <describe()>".
class JsonInputError : public std::runtime_error {
 public:
  JsonInputError(std::string_view what, JsonRefusal refusal);
  const JsonRefusal& refusal() const noexcept { return refusal_; }

 private:
  JsonRefusal refusal_;
};

struct ReadJson {
  rapidjson::Document document;      // null when refused
  std::size_t repaired_strings = 0;  // strings and keys whose invalid UTF-8 became U+FFFD
  std::optional<JsonRefusal> refused;
};

// `text` (one JSON value, nothing after it but white space) as a DOM within `limits`. Numbers
// become RapidJSON's numbers. With `allocator`, the values live in it (to be moved into another
// document that owns that allocator). Throws only std::bad_alloc.
ReadJson read_json(std::string_view text, const ReadLimits& limits,
                   rapidjson::Document::AllocatorType* allocator = nullptr);

// read_json for callers that treat a refusal as an error: throws JsonInputError naming `what`
// ("The token endpoint's answer", "result.json").
rapidjson::Document read_json_or_throw(std::string_view text, const ReadLimits& limits,
                                       std::string_view what);

struct CleanJson {
  std::string text;                  // compact JSON, valid UTF-8; empty when refused
  std::size_t repaired_strings = 0;  // as in ReadJson
  std::optional<JsonRefusal> refused;
};

// `text` written again as compact JSON in one streaming pass, with no DOM: the writer keeps its
// own heap stack, so no input can exhaust the caller's stack. Numbers keep their exact text.
// Same limits as read_json. Throws only std::bad_alloc.
CleanJson clean_json(std::string_view text, const ReadLimits& limits = kSandboxOutputLimits);

}  // namespace kg::json
