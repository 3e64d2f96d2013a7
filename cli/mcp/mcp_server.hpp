// The MCP server behind `kode-gopher serve`: JSON-RPC over newline-delimited stdio, dual-era
// (legacy revisions with `initialize`, and the stateless 2026-07-28 revision with per-request
// `_meta`), three tools that forward to the daemon, and one prompt (system_prompt.hpp).
//
// The main thread runs serve(): it reads every line, answers initialize, ping, server/discover,
// tools/list, prompts/list and prompts/get itself, takes notifications/cancelled at once, and hands tools/call to the
// ToolCallWorker so that a running program never blocks the reading. When stdin ends, serve()
// cancels what still runs, closes the daemon session and returns.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "daemon_session_link.hpp"
#include "host_services.hpp"
#include "json_rpc.hpp"
#include "line_reader.hpp"
#include "protocol_versions.hpp"
#include "protocol_writer.hpp"
#include "tool_catalog.hpp"
#include "tool_call_worker.hpp"

namespace kg::mcp {

struct ServerIdentity {
  std::string name = "kode-gopher";
  std::string title = "kode-gopher: Go in a sandbox";
  std::string version = KG_MCP_SERVER_VERSION;  // the project version, set by meson.build
};

// Lines longer than this are dropped with an error answer (programs are far smaller; the
// daemon's own request limit, 16 MiB by default, comes first and answers more precisely).
inline constexpr std::size_t kMaxMessageBytes = 32u << 20;

class McpServer {
 public:
  McpServer(ToolCatalog& tools, DaemonSessionLink& daemon, ProtocolWriter& writer,
            plugin::Logger& logger, ServerIdentity identity);

  // Reads and answers messages until the end of input, then shuts down as described above.
  void serve(LineReader& reader);

  // One line of input (exposed for tests that drive the server without a process).
  void handle_line(const InputLine& line);

 private:
  void dispatch(std::shared_ptr<IncomingMessage> message);
  void on_notification(const IncomingMessage& message);
  // The protocol features this request is served under; throws RpcError when the request
  // belongs to no era this server can serve (see the .cpp).
  ProtocolFeatures features_of(const IncomingMessage& message) const;

  // Result builders (mcp_results.cpp); each returns the result object without the modern
  // additions, which finish() puts on.
  rapidjson::Document initialize_result(const IncomingMessage& message);
  rapidjson::Document discover_result() const;
  rapidjson::Document list_tools_result(const ProtocolFeatures& features) const;
  rapidjson::Document list_prompts_result(const ProtocolFeatures& features) const;
  // Throws RpcError (invalid params) for a missing or unknown name, or for arguments.
  rapidjson::Document get_prompt_result(const IncomingMessage& message) const;
  std::string finish(rapidjson::Document result, const ProtocolFeatures& features) const;
  void submit_tool_call(std::shared_ptr<IncomingMessage> message, const ProtocolFeatures& features);

  ToolCatalog& tools_;
  DaemonSessionLink& daemon_;
  ProtocolWriter& writer_;
  plugin::Logger& logger_;
  ServerIdentity identity_;
  std::optional<std::string> legacy_version_;  // set by initialize; main thread only
  ToolCallWorker worker_;
};

// A tools/call result object for `result` under `features` (content, structuredContent when the
// revision has it, isError).
rapidjson::Document call_tool_result(const ToolResult& result, const ProtocolFeatures& features);

}  // namespace kg::mcp
