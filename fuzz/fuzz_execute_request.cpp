// Fuzzes the daemon API's request parsing: parse_execute_request (the body of POST /v1/execute
// and /v1/sessions/{id}/execute) and parse_json_object under it. The input is the raw body.
//
// Invariants: only BadRequestError escapes, and the refusal of a body that is not JSON names the
// line and column;
// a success carries at least one file; writing the parsed request back as JSON and parsing that
// again gives the same request (nothing is lost, invented or mangled — NUL bytes and non-ASCII
// text included).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "api_errors.hpp"
#include "execute_request_parser.hpp"
#include "fuzz_invariant.hpp"
#include "json_body.hpp"
#include "json_reader.hpp"

namespace {

using kg::api::ParsedExecute;

std::string as_json(const ParsedExecute& parsed) {
  rapidjson::StringBuffer buffer;
  kg::api::JsonWriter w(buffer);
  w.StartObject();
  w.Key("files");
  w.StartObject();
  for (const auto& file : parsed.call.execute.files) {
    kg::api::write_string(w, file.path);
    kg::api::write_string(w, file.content);
  }
  w.EndObject();
  w.Key("extra_imports");
  w.StartArray();
  for (const auto& path : parsed.call.execute.extra_imports) kg::api::write_string(w, path);
  w.EndArray();
  if (parsed.call.timeout_ms) {
    w.Key("timeout_ms");
    w.Uint(*parsed.call.timeout_ms);
  }
  w.Key("runtime");
  kg::api::write_string(w, parsed.call.runtime);
  w.Key("client");
  kg::api::write_string(w, parsed.client);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

// Apart from the request's own limits: is the body JSON at all (any size and depth, valid UTF-8)?
bool is_well_formed_json(std::string_view body) {
  constexpr kg::json::ReadLimits kAnyDepth{SIZE_MAX, SIZE_MAX, kg::json::InvalidUtf8::refuse};
  return !kg::json::read_json(body, kAnyDepth).refused;
}

bool same_request(const ParsedExecute& a, const ParsedExecute& b) {
  const auto& fa = a.call.execute.files;
  const auto& fb = b.call.execute.files;
  if (fa.size() != fb.size()) return false;
  for (std::size_t i = 0; i < fa.size(); ++i) {
    if (fa[i].path != fb[i].path || fa[i].content != fb[i].content) return false;
  }
  return a.call.execute.extra_imports == b.call.execute.extra_imports &&
         a.call.timeout_ms == b.call.timeout_ms && a.call.runtime == b.call.runtime &&
         a.client == b.client;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  ParsedExecute parsed;
  try {
    parsed = kg::api::parse_execute_request(body);
  } catch (const kg::api::BadRequestError& e) {
    const std::string_view message = e.what();
    KG_FUZZ_CHECK(!message.empty(), "a BadRequestError without a message");
    if (!is_well_formed_json(body)) {
      KG_FUZZ_CHECK(message.find("line ") != std::string_view::npos &&
                        message.find(", column ") != std::string_view::npos,
                    "a JSON syntax error without its position: " + std::string(message));
    }
    return 0;
  }
  KG_FUZZ_CHECK(!parsed.call.execute.files.empty(), "a request was accepted without files");
  const std::string written = as_json(parsed);
  ParsedExecute reparsed;
  try {
    reparsed = kg::api::parse_execute_request(written);
  } catch (const kg::api::BadRequestError& e) {
    KG_FUZZ_CHECK(false, "the parsed request, written back as " + written +
                             ", is refused: " + e.what());
  }
  KG_FUZZ_CHECK(same_request(parsed, reparsed),
                "the parsed request changed when written back as " + written);
  return 0;
}
