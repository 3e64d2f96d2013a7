// What an MCP tool of `kode-gopher serve` is: a definition for tools/list and a call that runs
// on the tool-call worker thread. The three tools (execute_go_code, gcp_auth_status,
// lookup_package_docs) each implement it in their own file; ToolCatalog owns them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "program_output.hpp"
#include "protocol_versions.hpp"

namespace kg::mcp {

// A tools/call outcome. Failures of the work itself (a program that does not compile, a daemon
// that refuses the input, bad arguments) are results with is_error set, so the model sees them;
// only protocol faults (unknown tool, malformed request) are JSON-RPC errors.
// A resource_link content item (protocol 2025-06-18 and later): a file the call left.
struct ResourceLink {
  std::string uri;
  std::string name;
  std::string mime_type;
  std::uint64_t size = 0;
};

struct ToolResult {
  bool is_error = false;
  std::string text;                       // the one text content block
  std::optional<std::string> structured;  // structuredContent (JSON text), when there is one
  std::vector<ResourceLink> links;        // after the text, where the revision has them

  static ToolResult error(std::string message) { return {true, std::move(message), std::nullopt, {}}; }
};

// What a running call may do besides computing its result. Implemented by the server for each
// call; used on the worker thread.
class ToolCallContext {
 public:
  virtual ~ToolCallContext() = default;
  // A phase boundary of the daemon's call ("setup", "build", "run"): becomes a progress
  // notification when the client asked for them.
  virtual void phase_reached(std::string_view phase, std::string_view detail) = 0;
  // The program's output as it is printed: becomes progress notifications carrying the text
  // when the client asked for them (call_output_progress.hpp).
  virtual void output_printed(const ProgramOutput& output) { (void)output; }
  // True once the client cancelled the call; its answer will not be sent.
  virtual bool cancelled() const = 0;
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual std::string_view name() const = 0;
  // The Tool object of tools/list for this protocol version (no outputSchema or title before
  // 2025-06-18).
  virtual rapidjson::Document definition(const ProtocolFeatures& features) const = 0;
  // Runs the call. `arguments` is the call's arguments object, or nullptr when it had none.
  // Returns error results instead of throwing for anything the caller can fix or should see.
  virtual ToolResult call(const rapidjson::Value* arguments, ToolCallContext& context) = 0;
};

}  // namespace kg::mcp
