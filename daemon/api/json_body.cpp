#include "json_body.hpp"

#include "api_errors.hpp"

namespace kg::api {

rapidjson::Document parse_json_object(std::string_view body) {
  using Kind = json::JsonRefusal::Kind;
  json::ReadJson read = json::read_json(body, json::kRequestLimits);
  if (const auto& refused = read.refused) {
    const std::string where = refused->position();
    switch (refused->kind) {
      case Kind::too_large:
        throw BadRequestError("the request body " + refused->reason);
      case Kind::too_deep:
        throw BadRequestError("JSON nested deeper than " +
                              std::to_string(json::kRequestLimits.max_depth) + " levels at " +
                              where + "; flatten the request");
      case Kind::lone_surrogate:
        throw BadRequestError("invalid UTF-8 in a JSON string ending at " + where +
                              ": a \\uXXXX escape names a lone UTF-16 surrogate; escape a "
                              "character above U+FFFF as a surrogate pair");
      case Kind::invalid_utf8:
        throw BadRequestError("invalid UTF-8 in a JSON string at " + where +
                              "; the request body must be UTF-8 (escape other text as \\uXXXX)");
      case Kind::syntax:
        throw BadRequestError("invalid JSON at " + where + ": " + refused->reason);
    }
  }
  if (!read.document.IsObject()) throw BadRequestError("the request body must be a JSON object");
  return std::move(read.document);
}

}  // namespace kg::api
