// The lookup_package_docs tool: `go doc <package> [<symbol>]` against the curated lockfile, run
// by the daemon in this connection's sandbox (POST /v1/sessions/{id}/docs, which leaves /app
// alone). The package must be a curated one and the symbol an identifier path; both are
// checked here first so the model gets the list of choices without a round trip.
// Called on the tool-call worker thread.
#pragma once

#include <string_view>

#include "session_backend.hpp"
#include "tool.hpp"

namespace kg::mcp {

class LookupPackageDocsTool final : public Tool {
 public:
  explicit LookupPackageDocsTool(SessionBackend& daemon) : daemon_(daemon) {}

  std::string_view name() const override { return "lookup_package_docs"; }
  rapidjson::Document definition(const ProtocolFeatures& features) const override;
  ToolResult call(const rapidjson::Value* arguments, ToolCallContext& context) override;

 private:
  SessionBackend& daemon_;
};

// ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$
bool is_symbol_path(std::string_view symbol) noexcept;
bool is_curated_package(std::string_view package) noexcept;

}  // namespace kg::mcp
