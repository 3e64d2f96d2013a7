// The tools `kode-gopher serve` offers, in the fixed order tools/list shows them
// (execute_go_code, gcp_auth_status, lookup_package_docs). Built once by serve_command; read by
// the reading thread (list, find) and used by the worker (Tool::call).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "offered_runtimes.hpp"
#include "session_backend.hpp"
#include "tool.hpp"

namespace kg::mcp {

class ToolCatalog {
 public:
  explicit ToolCatalog(SessionBackend& daemon);

  // The `tools` array of a tools/list result, as JSON text.
  std::string list_json(const ProtocolFeatures& features) const;
  // nullptr when there is no tool by that name.
  Tool* find(std::string_view name) const;
  // "execute_go_code, gcp_auth_status, lookup_package_docs".
  std::string names() const;

 private:
  OfferedRuntimesCache runtimes_;
  std::vector<std::unique_ptr<Tool>> tools_;
};

}  // namespace kg::mcp
