#include "bounded_json.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>

#include "utf8_text.hpp"

namespace kg::sandbox_output {
namespace {

// Hands every SAX event on to `next` (a writer or a document being built), stopping the parse
// at the first array or object deeper than max_depth and repairing strings and keys that are
// not UTF-8. The parser copies a string's bytes as they are unless told to validate, and decodes
// an escaped lone low surrogate ("\udc00") into ED B0 80, so each string is checked here.
template <typename Next>
class BoundedHandler {
 public:
  BoundedHandler(Next& next, std::size_t max_depth) : next_(next), max_depth_(max_depth) {}

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
    const std::string valid = repaired(text, length);
    return next_.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()), true);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool copy) {
    if (is_valid_utf8({text, length})) return next_.Key(text, length, copy);
    const std::string valid = repaired(text, length);
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
  std::size_t repaired_strings() const noexcept { return repaired_; }

 private:
  bool enter() {
    if (++depth_ > max_depth_) too_deep_ = true;
    return !too_deep_;
  }

  std::string repaired(const char* text, rapidjson::SizeType length) {
    ++repaired_;
    return to_valid_utf8({text, length});
  }

  Next& next_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
  bool too_deep_ = false;
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

// Iterative: the parser keeps its own stack on the heap.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag;

template <typename Next>
std::optional<JsonRefusal> refusal(const rapidjson::Reader& reader,
                                   const BoundedHandler<Next>& handler, std::size_t max_depth) {
  if (!reader.HasParseError()) return std::nullopt;
  JsonRefusal refused;
  refused.offset = reader.GetErrorOffset();
  refused.too_deep = handler.too_deep();
  refused.reason = refused.too_deep
                       ? "nests deeper than " + std::to_string(max_depth) + " levels"
                       : std::string(rapidjson::GetParseError_En(reader.GetParseErrorCode()));
  return refused;
}

}  // namespace

std::string JsonRefusal::describe() const {
  const std::string at = "at offset " + std::to_string(offset);
  return too_deep ? reason + " (" + at + ")" : "is not valid JSON (" + reason + " " + at + ")";
}

CleanJson clean_json(std::string_view json, std::size_t max_depth) {
  rapidjson::StringBuffer buffer;
  CompactWriter writer(buffer);
  BoundedHandler<CompactWriter> handler(writer, max_depth);
  rapidjson::MemoryStream bytes(json.data(), json.size());
  Input input(bytes);
  rapidjson::Reader reader;
  reader.Parse<kParseFlags | rapidjson::kParseNumbersAsStringsFlag>(input, handler);
  CleanJson clean;
  clean.refused = refusal(reader, handler, max_depth);
  if (!clean.refused) {
    clean.text.assign(buffer.GetString(), buffer.GetSize());
    clean.repaired_strings = handler.repaired_strings();
  }
  return clean;
}

BoundedDocument parse_bounded(std::string_view json, std::size_t max_depth) {
  BoundedDocument parsed;
  BoundedHandler<rapidjson::Document> handler(parsed.document, max_depth);
  rapidjson::MemoryStream bytes(json.data(), json.size());
  Input input(bytes);
  rapidjson::Reader reader;
  auto generate = [&](rapidjson::Document&) {
    return !reader.Parse<kParseFlags>(input, handler).IsError();
  };
  parsed.document.Populate(generate);
  parsed.refused = refusal(reader, handler, max_depth);
  if (parsed.refused) parsed.document.SetNull();
  else parsed.repaired_strings = handler.repaired_strings();
  return parsed;
}

}  // namespace kg::sandbox_output
