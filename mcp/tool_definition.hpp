// Builds the Tool objects of tools/list from their parts, leaving out what the client's protocol
// revision does not know (title and outputSchema before 2025-06-18), and reads tool arguments
// with messages a model can act on. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "protocol_versions.hpp"

namespace kg::mcp {

struct ToolDescription {
  std::string name;
  std::string title;
  std::string description;
  std::string input_schema_json;
  std::optional<std::string> output_schema_json;
  std::string annotations_json;
};

// Throws std::logic_error when one of the JSON parts does not parse (a bug in this program).
rapidjson::Document build_tool_definition(const ToolDescription& tool,
                                          const ProtocolFeatures& features);

// Arguments a tool cannot use; the message is shown to the model as an error result.
class ToolArgumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks a tools/call arguments value (nullptr means none) against the names a tool accepts and
// hands out its members. Every accessor throws ToolArgumentError naming the tool and argument.
class ToolArguments {
 public:
  ToolArguments(std::string_view tool, const rapidjson::Value* arguments,
                std::initializer_list<std::string_view> known);

  bool has(std::string_view name) const;
  std::optional<std::string> optional_string(std::string_view name) const;
  // An object whose members are all strings.
  const rapidjson::Value* optional_string_map(std::string_view name) const;
  // An array of strings (empty when absent).
  std::optional<std::vector<std::string>> optional_string_list(std::string_view name) const;
  // An object, as given (nullptr when absent); the tool checks its members.
  const rapidjson::Value* optional_object(std::string_view name) const;
  // A whole number from 1 to 2^32-1 (also when a client wrote it as 90000.0).
  std::optional<std::uint32_t> optional_positive_integer(std::string_view name) const;

 private:
  const rapidjson::Value* member(std::string_view name) const;
  [[noreturn]] void fail(std::string_view name, std::string_view problem) const;

  std::string tool_;
  const rapidjson::Value* arguments_;
};

}  // namespace kg::mcp
