#include "json_body.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>

#include "api_errors.hpp"

namespace kg::api {
namespace {

// Hands every SAX event on to the document that is being built, but stops the parse at the
// first array or object deeper than kMaxJsonDepth.
class DepthLimitedHandler {
 public:
  explicit DepthLimitedHandler(rapidjson::Document& doc) : doc_(doc) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(std::int64_t i) { return doc_.Int64(i); }
  bool Uint64(std::uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy) {
    return doc_.RawNumber(text, length, copy);
  }
  bool String(const char* text, rapidjson::SizeType length, bool copy) {
    return no_surrogate(text, length) && doc_.String(text, length, copy);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool copy) {
    return no_surrogate(text, length) && doc_.Key(text, length, copy);
  }
  bool StartObject() { return enter() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_.EndObject(members);
  }
  bool StartArray() { return enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_.EndArray(elements);
  }

  bool too_deep() const noexcept { return too_deep_; }
  bool lone_surrogate() const noexcept { return lone_surrogate_; }

 private:
  bool enter() {
    if (++depth_ > kMaxJsonDepth) too_deep_ = true;
    return !too_deep_;
  }

  // RapidJSON 1.1 decodes an escaped lone low surrogate ("\udc00") into ED B0 80, which is not
  // UTF-8 (found by fuzz/fuzz_execute_request). The body's own bytes are validated already, so
  // an encoded surrogate — 0xED then 0xA0..0xBF — can only come from such an escape.
  bool no_surrogate(const char* text, rapidjson::SizeType length) {
    for (rapidjson::SizeType i = 0; i + 1 < length; ++i) {
      if (static_cast<unsigned char>(text[i]) == 0xED &&
          static_cast<unsigned char>(text[i + 1]) >= 0xA0) {
        lone_surrogate_ = true;
        return false;
      }
    }
    return true;
  }

  rapidjson::Document& doc_;
  std::size_t depth_ = 0;
  bool too_deep_ = false;
  bool lone_surrogate_ = false;
};

// "line L, column C" of a byte offset into body (both from 1, columns in bytes).
std::string position_of(std::string_view body, std::size_t offset) {
  offset = std::min(offset, body.size());
  const auto before = body.substr(0, offset);
  const auto line = 1 + std::count(before.begin(), before.end(), '\n');
  const auto last_newline = before.rfind('\n');
  const auto column = offset - (last_newline == std::string_view::npos ? 0 : last_newline + 1) + 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

rapidjson::Document parse_json_object(std::string_view body) {
  rapidjson::Document doc;
  rapidjson::Reader reader;
  DepthLimitedHandler handler(doc);
  rapidjson::MemoryStream bytes(body.data(), body.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
  // Iterative: the parser keeps its own stack on the heap, so no input can exhaust the thread's.
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
  auto generate = [&](rapidjson::Document&) {
    return !reader.Parse<kFlags>(stream, handler).IsError();
  };
  doc.Populate(generate);
  if (reader.HasParseError()) {
    const auto where = position_of(body, reader.GetErrorOffset());
    if (handler.too_deep()) {
      throw BadRequestError("JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels at " + where + "; flatten the request");
    }
    if (handler.lone_surrogate()) {
      throw BadRequestError("invalid UTF-8 in a JSON string ending at " + where +
                            ": a \\uXXXX escape names a lone UTF-16 surrogate; escape a "
                            "character above U+FFFF as a surrogate pair");
    }
    if (reader.GetParseErrorCode() == rapidjson::kParseErrorStringInvalidEncoding) {
      throw BadRequestError("invalid UTF-8 in a JSON string at " + where +
                            "; the request body must be UTF-8 (escape other text as \\uXXXX)");
    }
    throw BadRequestError("invalid JSON at " + where + ": " +
                          rapidjson::GetParseError_En(reader.GetParseErrorCode()));
  }
  if (!doc.IsObject()) throw BadRequestError("the request body must be a JSON object");
  return doc;
}

}  // namespace kg::api
