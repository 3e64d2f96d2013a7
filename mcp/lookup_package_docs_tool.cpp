#include "lookup_package_docs_tool.hpp"

#include <algorithm>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "curated_package_list.hpp"
#include "json_rpc.hpp"
#include "tool_definition.hpp"
#include "tool_descriptions.hpp"
#include "tool_failure.hpp"

namespace kg::mcp {
namespace {

constexpr std::string_view kTool = "lookup_package_docs";
constexpr std::string_view kSymbolPattern =
    R"(^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$)";

constexpr std::string_view kOutputSchema = R"json({
  "type": "object",
  "required": ["package", "docs"],
  "properties": {
    "package": {"type": "string"},
    "symbol": {"type": "string"},
    "docs": {"type": "string", "description": "The output of go doc"}
  },
  "additionalProperties": false
})json";

constexpr std::string_view kAnnotations = R"json({
  "title": "Look up Go package docs",
  "readOnlyHint": true,
  "idempotentHint": true,
  "openWorldHint": false
})json";

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void write_text(JsonWriter& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// The input schema names the curated packages as an enum, from the generated list.
std::string input_schema() {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("type");
  writer.String("object");
  writer.Key("properties");
  writer.StartObject();
  writer.Key("package");
  writer.StartObject();
  writer.Key("type");
  writer.String("string");
  writer.Key("enum");
  writer.StartArray();
  for (const std::string_view package : kCuratedPackages) write_text(writer, package);
  writer.EndArray();
  writer.Key("description");
  writer.String("A curated package's import path");
  writer.EndObject();
  writer.Key("symbol");
  writer.StartObject();
  writer.Key("type");
  writer.String("string");
  writer.Key("pattern");
  write_text(writer, kSymbolPattern);
  writer.Key("description");
  writer.String("Optional: a function, type or method, e.g. NewClient or Client.Bucket");
  writer.EndObject();
  writer.EndObject();
  writer.Key("required");
  writer.StartArray();
  writer.String("package");
  writer.EndArray();
  writer.Key("additionalProperties");
  writer.Bool(false);
  writer.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

bool is_identifier_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool is_identifier_char(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9'); }

}  // namespace

bool is_symbol_path(std::string_view symbol) noexcept {
  bool at_start = true;  // of an identifier
  for (const char c : symbol) {
    if (at_start) {
      if (!is_identifier_start(c)) return false;
      at_start = false;
    } else if (c == '.') {
      at_start = true;
    } else if (!is_identifier_char(c)) {
      return false;
    }
  }
  return !at_start;
}

bool is_curated_package(std::string_view package) noexcept {
  return std::find(kCuratedPackages.begin(), kCuratedPackages.end(), package) !=
         kCuratedPackages.end();
}

rapidjson::Document LookupPackageDocsTool::definition(const ProtocolFeatures& features) const {
  return build_tool_definition({std::string(kTool), "Look up Go package docs",
                                lookup_package_docs_description(), input_schema(),
                                std::string(kOutputSchema), std::string(kAnnotations)},
                               features);
}

ToolResult LookupPackageDocsTool::call(const rapidjson::Value* arguments, ToolCallContext&) {
  try {
    const ToolArguments args(kTool, arguments, {"package", "symbol"});
    const std::optional<std::string> package = args.optional_string("package");
    if (!package) {
      throw ToolArgumentError(std::string(kTool) + ": argument \"package\" is required; the "
                              "curated packages are:\n" + curated_package_bullets());
    }
    if (!is_curated_package(*package)) {
      throw ToolArgumentError(std::string(kTool) + ": \"" + *package + "\" is not a curated "
                              "package; the curated packages are:\n" + curated_package_bullets());
    }
    const std::optional<std::string> symbol = args.optional_string("symbol");
    if (symbol && !is_symbol_path(*symbol)) {
      throw ToolArgumentError(std::string(kTool) + ": symbol \"" + *symbol + "\" must be a Go "
                              "identifier or a dotted path of them, such as NewClient or "
                              "Client.Bucket");
    }
    const wire::daemon_api::DocsAnswer answer = daemon_.package_docs({*package, symbol});
    ToolResult result;
    result.text = answer.docs;
    result.structured = wire::daemon_api::encode_docs_answer(answer);
    return result;
  } catch (...) {
    return tool_failure(kTool, std::current_exception());
  }
}

}  // namespace kg::mcp
