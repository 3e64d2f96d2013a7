#include "tool_definition.hpp"

#include "json_reader.hpp"
#include "json_rpc.hpp"

namespace kg::mcp {
namespace {

rapidjson::Value parsed(std::string_view json, std::string_view what,
                        rapidjson::Document::AllocatorType& allocator) {
  json::ReadJson part = json::read_json(json, json::kRequestLimits, &allocator);
  if (part.refused) {
    throw std::logic_error("The " + std::string(what) + " of an MCP tool " +
                           part.refused->describe());
  }
  rapidjson::Value value;
  value.Swap(part.document);  // its values live in `allocator`, so the swapped root stays valid
  return value;
}

rapidjson::Value text(std::string_view value, rapidjson::Document::AllocatorType& allocator) {
  return rapidjson::Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator);
}

}  // namespace

rapidjson::Document build_tool_definition(const ToolDescription& tool,
                                          const ProtocolFeatures& features) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& allocator = doc.GetAllocator();
  doc.AddMember("name", text(tool.name, allocator), allocator);
  if (features.titles) doc.AddMember("title", text(tool.title, allocator), allocator);
  doc.AddMember("description", text(tool.description, allocator), allocator);
  doc.AddMember("inputSchema", parsed(tool.input_schema_json, "inputSchema", allocator), allocator);
  if (features.structured_output && tool.output_schema_json) {
    doc.AddMember("outputSchema", parsed(*tool.output_schema_json, "outputSchema", allocator),
                  allocator);
  }
  doc.AddMember("annotations", parsed(tool.annotations_json, "annotations", allocator), allocator);
  return doc;
}

ToolArguments::ToolArguments(std::string_view tool, const rapidjson::Value* arguments,
                             std::initializer_list<std::string_view> known)
    : tool_(tool), arguments_(arguments) {
  if (arguments_ == nullptr || arguments_->IsNull()) {
    arguments_ = nullptr;
    return;
  }
  if (!arguments_->IsObject()) {
    throw ToolArgumentError(tool_ + ": the arguments must be a JSON object");
  }
  for (const auto& entry : arguments_->GetObject()) {
    const std::string_view name(entry.name.GetString(), entry.name.GetStringLength());
    bool is_known = false;
    for (const std::string_view candidate : known) is_known = is_known || candidate == name;
    if (!is_known) {
      std::string list;
      for (const std::string_view candidate : known) {
        list += (list.empty() ? "" : ", ") + std::string(candidate);
      }
      throw ToolArgumentError(tool_ + ": unknown argument \"" + std::string(name) +
                              "\"; the arguments are: " + (list.empty() ? "none" : list));
    }
  }
}

const rapidjson::Value* ToolArguments::member(std::string_view name) const {
  const rapidjson::Value* value = find_member(arguments_, name);
  return value != nullptr && !value->IsNull() ? value : nullptr;
}

bool ToolArguments::has(std::string_view name) const { return member(name) != nullptr; }

void ToolArguments::fail(std::string_view name, std::string_view problem) const {
  throw ToolArgumentError(tool_ + ": argument \"" + std::string(name) + "\" " +
                          std::string(problem));
}

std::optional<std::string> ToolArguments::optional_string(std::string_view name) const {
  const rapidjson::Value* value = member(name);
  if (value == nullptr) return std::nullopt;
  if (!value->IsString()) fail(name, "must be a string");
  return std::string(value->GetString(), value->GetStringLength());
}

const rapidjson::Value* ToolArguments::optional_string_map(std::string_view name) const {
  const rapidjson::Value* value = member(name);
  if (value == nullptr) return nullptr;
  if (!value->IsObject()) fail(name, "must be an object mapping file paths to file contents");
  for (const auto& entry : value->GetObject()) {
    if (!entry.value.IsString()) {
      fail(name, "must map each path to its content as a string; \"" +
                     std::string(entry.name.GetString()) + "\" is not a string");
    }
  }
  return value;
}

std::optional<std::vector<std::string>> ToolArguments::optional_string_list(
    std::string_view name) const {
  const rapidjson::Value* value = member(name);
  if (value == nullptr) return std::nullopt;
  if (!value->IsArray()) fail(name, "must be an array of strings");
  std::vector<std::string> list;
  for (const auto& item : value->GetArray()) {
    if (!item.IsString()) fail(name, "must be an array of strings");
    list.emplace_back(item.GetString(), item.GetStringLength());
  }
  return list;
}

const rapidjson::Value* ToolArguments::optional_object(std::string_view name) const {
  const rapidjson::Value* value = member(name);
  if (value != nullptr && !value->IsObject()) fail(name, "must be an object");
  return value;
}

std::optional<std::uint32_t> ToolArguments::optional_positive_integer(
    std::string_view name) const {
  const rapidjson::Value* value = member(name);
  if (value == nullptr) return std::nullopt;
  constexpr std::string_view kShape = "must be a whole number of at least 1";
  if (value->IsUint()) {
    if (value->GetUint() == 0) fail(name, kShape);
    return value->GetUint();
  }
  if (value->IsDouble()) {
    const double number = value->GetDouble();
    if (number >= 1 && number <= 4294967295.0 && number == static_cast<double>(
                                                        static_cast<std::uint64_t>(number))) {
      return static_cast<std::uint32_t>(number);
    }
  }
  fail(name, kShape);
}

}  // namespace kg::mcp
