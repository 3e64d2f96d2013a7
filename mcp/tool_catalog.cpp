#include "tool_catalog.hpp"

#include "execute_go_code_tool.hpp"
#include "gcp_auth_status_tool.hpp"
#include "json_rpc.hpp"
#include "lookup_package_docs_tool.hpp"

namespace kg::mcp {

ToolCatalog::ToolCatalog(SessionBackend& daemon) : runtimes_(daemon) {
  tools_.push_back(std::make_unique<ExecuteGoCodeTool>(daemon, runtimes_));
  tools_.push_back(std::make_unique<GcpAuthStatusTool>(daemon));
  tools_.push_back(std::make_unique<LookupPackageDocsTool>(daemon));
}

std::string ToolCatalog::list_json(const ProtocolFeatures& features) const {
  std::string json = "[";
  for (const auto& tool : tools_) {
    if (json.size() > 1) json += ',';
    json += to_json(tool->definition(features));
  }
  return json + "]";
}

Tool* ToolCatalog::find(std::string_view name) const {
  for (const auto& tool : tools_) {
    if (tool->name() == name) return tool.get();
  }
  return nullptr;
}

std::string ToolCatalog::names() const {
  std::string list;
  for (const auto& tool : tools_) {
    if (!list.empty()) list += ", ";
    list += tool->name();
  }
  return list;
}

}  // namespace kg::mcp
