#include "json_reader.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <type_traits>

#include "utf8_text.hpp"

namespace kg::json {
namespace {

// Hands every SAX event on to `next` (a writer or a document being built), stopping the parse
// at the first array or object deeper than the limit, and at (refuse) or repairing (repair)
// strings and keys that are not UTF-8. The parser copies a string's bytes as they are unless
// told to validate, and decodes an escaped lone surrogate ("\udc00") into ED B0 80 even then,
// so each decoded string is checked here.
template <typename Next>
class BoundedHandler {
 public:
  BoundedHandler(Next& next, const ReadLimits& limits) : next_(next), limits_(limits) {}

  bool Null() { return next_.Null(); }
  bool Bool(bool b) { return next_.Bool(b); }
  bool Int(int i) { return next_.Int(i); }
  bool Uint(unsigned u) { return next_.Uint(u); }
  bool Int64(std::int64_t i) { return next_.Int64(i); }
  bool Uint64(std::uint64_t u) { return next_.Uint64(u); }
  bool Double(double d) { return next_.Double(d); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy) {
    return next_.RawNumber(text, length, copy);
  }
  bool String(const char* text, rapidjson::SizeType length, bool copy) {
    if (is_valid_utf8({text, length})) return next_.String(text, length, copy);
    if (!repair()) return false;
    const std::string valid = to_valid_utf8({text, length});
    return next_.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()), true);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool copy) {
    if (is_valid_utf8({text, length})) return next_.Key(text, length, copy);
    if (!repair()) return false;
    const std::string valid = to_valid_utf8({text, length});
    return next_.Key(valid.data(), static_cast<rapidjson::SizeType>(valid.size()), true);
  }
  bool StartObject() { return enter() && next_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return next_.EndObject(members);
  }
  bool StartArray() { return enter() && next_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return next_.EndArray(elements);
  }

  bool too_deep() const noexcept { return too_deep_; }
  bool lone_surrogate() const noexcept { return lone_surrogate_; }
  std::size_t repaired_strings() const noexcept { return repaired_; }

 private:
  bool enter() {
    if (++depth_ > limits_.max_depth) too_deep_ = true;
    return !too_deep_;
  }

  // A decoded string that is not UTF-8: repaired (counted), or the parse stops. Under refuse the
  // parser validated the raw bytes already, so only a \u escape can have made it.
  bool repair() {
    if (limits_.invalid_utf8 == InvalidUtf8::refuse) {
      lone_surrogate_ = true;
      return false;
    }
    ++repaired_;
    return true;
  }

  Next& next_;
  const ReadLimits& limits_;
  std::size_t depth_ = 0;
  bool too_deep_ = false;
  bool lone_surrogate_ = false;
  std::size_t repaired_ = 0;
};

// RapidJSON 1.1's Writer::RawNumber writes the number's text as a quoted string; this one
// writes it as the number it is.
class CompactWriter : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  using Writer::Writer;
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    return RawValue(text, length, rapidjson::kNumberType);
  }
};

using Input = rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream>;

// Iterative: the parser keeps its own stack on the heap. Under refuse, the parser validates each
// string's raw bytes itself (so the error has the exact offset).
constexpr unsigned kIterative = rapidjson::kParseIterativeFlag;
constexpr unsigned kValidating = kIterative | rapidjson::kParseValidateEncodingFlag;

JsonRefusal refusal_at(std::string_view text, std::size_t offset, JsonRefusal::Kind kind,
                       std::string reason) {
  JsonRefusal refused;
  refused.kind = kind;
  refused.offset = offset < text.size() ? offset : text.size();
  for (std::size_t i = 0; i < refused.offset; ++i) {
    if (text[i] == '\n') {
      ++refused.line;
      refused.column = 1;
    } else {
      ++refused.column;
    }
  }
  refused.reason = std::move(reason);
  return refused;
}

std::optional<JsonRefusal> too_large(std::string_view text, const ReadLimits& limits) {
  if (text.size() <= limits.max_bytes) return std::nullopt;
  return refusal_at(text, 0, JsonRefusal::Kind::too_large,
                    "is larger than " + std::to_string(limits.max_bytes) + " bytes");
}

template <typename Next>
std::optional<JsonRefusal> refusal(std::string_view text, const rapidjson::Reader& reader,
                                   const BoundedHandler<Next>& handler, const ReadLimits& limits) {
  if (!reader.HasParseError()) return std::nullopt;
  const std::size_t offset = reader.GetErrorOffset();
  if (handler.too_deep()) {
    return refusal_at(text, offset, JsonRefusal::Kind::too_deep,
                      "nests deeper than " + std::to_string(limits.max_depth) + " levels");
  }
  if (handler.lone_surrogate()) {
    return refusal_at(text, offset, JsonRefusal::Kind::lone_surrogate,
                      "has a \\u escape naming a lone UTF-16 surrogate");
  }
  if (reader.GetParseErrorCode() == rapidjson::kParseErrorStringInvalidEncoding) {
    return refusal_at(text, offset, JsonRefusal::Kind::invalid_utf8,
                      "has a string that is not UTF-8");
  }
  return refusal_at(text, offset, JsonRefusal::Kind::syntax,
                    rapidjson::GetParseError_En(reader.GetParseErrorCode()));
}

template <unsigned kFlags, typename Next>
std::optional<JsonRefusal> parse_into(std::string_view text, const ReadLimits& limits,
                                      Next& next, std::size_t& repaired) {
  BoundedHandler<Next> handler(next, limits);
  rapidjson::MemoryStream bytes(text.data(), text.size());
  Input input(bytes);
  rapidjson::Reader reader;
  if constexpr (std::is_same_v<Next, rapidjson::Document>) {
    auto generate = [&](rapidjson::Document&) {
      return !reader.Parse<kFlags>(input, handler).IsError();
    };
    next.Populate(generate);
  } else {
    reader.Parse<kFlags>(input, handler);
  }
  repaired = handler.repaired_strings();
  return refusal(text, reader, handler, limits);
}

}  // namespace

std::string JsonRefusal::position() const {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string JsonRefusal::describe() const {
  switch (kind) {
    case Kind::too_large:
      return reason;
    case Kind::syntax:
      return "is not valid JSON: " + reason + " (" + position() + ")";
    default:
      return reason + " (" + position() + ")";
  }
}

JsonInputError::JsonInputError(std::string_view what, JsonRefusal refusal)
    : std::runtime_error(std::string(what) + " " + refusal.describe()),
      refusal_(std::move(refusal)) {}

ReadJson read_json(std::string_view text, const ReadLimits& limits,
                   rapidjson::Document::AllocatorType* allocator) {
  ReadJson read{allocator != nullptr ? rapidjson::Document(allocator) : rapidjson::Document(), 0,
                too_large(text, limits)};
  if (!read.refused) {
    read.refused =
        limits.invalid_utf8 == InvalidUtf8::refuse
            ? parse_into<kValidating>(text, limits, read.document, read.repaired_strings)
            : parse_into<kIterative>(text, limits, read.document, read.repaired_strings);
  }
  if (read.refused) {
    read.document.SetNull();
    read.repaired_strings = 0;
  }
  return read;
}

rapidjson::Document read_json_or_throw(std::string_view text, const ReadLimits& limits,
                                       std::string_view what) {
  ReadJson read = read_json(text, limits);
  if (read.refused) throw JsonInputError(what, std::move(*read.refused));
  return std::move(read.document);
}

CleanJson clean_json(std::string_view text, const ReadLimits& limits) {
  CleanJson clean;
  clean.refused = too_large(text, limits);
  if (clean.refused) return clean;
  rapidjson::StringBuffer buffer;
  CompactWriter writer(buffer);
  constexpr unsigned kNumbersAsText = rapidjson::kParseNumbersAsStringsFlag;
  clean.refused =
      limits.invalid_utf8 == InvalidUtf8::refuse
          ? parse_into<kValidating | kNumbersAsText>(text, limits, writer, clean.repaired_strings)
          : parse_into<kIterative | kNumbersAsText>(text, limits, writer, clean.repaired_strings);
  if (clean.refused) {
    clean.repaired_strings = 0;
  } else {
    clean.text.assign(buffer.GetString(), buffer.GetSize());
  }
  return clean;
}

}  // namespace kg::json
