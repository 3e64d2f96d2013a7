#include "json_body.hpp"

#include <rapidjson/error/en.h>

#include <algorithm>

#include "api_errors.hpp"

namespace kg::api {

rapidjson::Document parse_json_object(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(body.data(),
                                                                                     body.size());
  if (doc.HasParseError()) {
    const std::size_t offset = std::min(doc.GetErrorOffset(), body.size());
    const auto before = body.substr(0, offset);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const auto last_newline = before.rfind('\n');
    const auto column = offset - (last_newline == std::string_view::npos ? 0 : last_newline + 1) + 1;
    throw BadRequestError("invalid JSON at line " + std::to_string(line) + ", column " +
                          std::to_string(column) + ": " +
                          rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject()) throw BadRequestError("the request body must be a JSON object");
  return doc;
}

}  // namespace kg::api
