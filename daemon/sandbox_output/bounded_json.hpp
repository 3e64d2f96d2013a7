// Reading JSON that a sandbox produced (a result.json, the sandbox server's answers) or that
// carries it (the daemon's answers, read by the CLI and `kode-gopher serve`) without ever
// recursing on its shape. RapidJSON parses recursively unless told kParseIterativeFlag, and even
// then everything that walks a DOM recurses: Writer through Accept, CopyFrom, pretty printing
// (a ~240 KB result.json of 120 000 nested arrays once overflowed the daemon's stack that way).
// So JSON from a sandbox is either streamed from the iterative parser straight into a writer
// (clean_json) or parsed into a DOM no deeper than a fixed bound (parse_bounded), and every
// string and key in it comes out as valid UTF-8.
//
// A DOM's destruction does not recurse: Documents use MemoryPoolAllocator, whose kNeedFree is
// false, so ~GenericValue frees nothing per value (checked against RapidJSON 1.1's document.h).
// Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kg::sandbox_output {

// How deep arrays and objects may nest in JSON from a sandbox, the outermost value being level 1.
// Far deeper than any real API object, and shallow enough that code walking a parsed value
// recursively (Accept, CopyFrom, pretty printing) stays far from the end of any thread's stack.
inline constexpr std::size_t kMaxResultDepth = 128;

// Why a text was refused. describe() reads as the end of a sentence about the text:
// "nests deeper than 128 levels (at offset 128)", "is not valid JSON (Invalid value. at offset 8)".
struct JsonRefusal {
  bool too_deep = false;
  std::size_t offset = 0;  // the byte where reading stopped
  std::string reason;      // RapidJSON's message, or "nests deeper than N levels"
  std::string describe() const;
};

struct CleanJson {
  std::string text;                  // compact JSON, valid UTF-8; empty when refused
  std::size_t repaired_strings = 0;  // strings and keys whose invalid UTF-8 became U+FFFD
  std::optional<JsonRefusal> refused;
};

// `json` (one JSON value, nothing after it but white space) written again as compact JSON in one
// streaming pass, with no DOM: the parse is iterative and the writer keeps its own heap stack, so
// no input can exhaust the caller's stack. Numbers keep their exact text. Refuses text that is
// not JSON or nests deeper than max_depth; repairs strings and keys that are not UTF-8 (overlong
// forms, encoded or escaped lone surrogates, stray and cut-off bytes) byte by byte into U+FFFD.
// Throws only std::bad_alloc.
CleanJson clean_json(std::string_view json, std::size_t max_depth = kMaxResultDepth);

struct BoundedDocument {
  rapidjson::Document document;      // null when refused
  std::size_t repaired_strings = 0;  // as in CleanJson
  std::optional<JsonRefusal> refused;
};

// `json` parsed into a DOM with the same rules as clean_json (iterative, at most max_depth deep,
// strings and keys repaired), so that walking the DOM recursively afterwards is bounded too.
// Numbers become RapidJSON's numbers.
// Throws only std::bad_alloc.
BoundedDocument parse_bounded(std::string_view json, std::size_t max_depth = kMaxResultDepth);

}  // namespace kg::sandbox_output
