// One MCP connection's server, whatever carries its messages (the stdio shim's lines, or a
// streamable-HTTP session's POSTs): dual-era (legacy revisions with `initialize`, and the
// stateless 2026-07-28 revision with per-request `_meta`), three tools that run against one
// SessionBackend, and one prompt (system_prompt.hpp).
//
// handle() answers initialize, ping, server/discover, tools/list, prompts/list and prompts/get
// at once, takes notifications/cancelled at once, and hands tools/call to the ToolCallWorker so
// that a running program never blocks the caller; answers go to each request's ReplyChannel.
// Callers serialize handle() (one reading thread, or a lock per HTTP session); cancel_reply
// and shutdown may come from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "logger.hpp"
#include "json_rpc.hpp"
#include "protocol_versions.hpp"
#include "reply_channel.hpp"
#include "session_backend.hpp"
#include "tasks/connection_tasks.hpp"
#include "tool_catalog.hpp"
#include "tool_call_worker.hpp"

namespace kg::mcp {

struct ServerIdentity {
  std::string name = "kode-gopher";
  std::string title = "kode-gopher: Go in a sandbox";
  std::string version = KG_MCP_SERVER_VERSION;  // the project version, set by meson.build
};


class McpServer {
 public:
  McpServer(ToolCatalog& tools, SessionBackend& backend, log::Logger& logger,
            ServerIdentity identity);
  ~McpServer() { shutdown(); }

  // One message. A request's answer (and its progress) goes to `reply`; a notification or a
  // client's response needs none (reply may be null).
  void handle(std::shared_ptr<IncomingMessage> message, std::shared_ptr<ReplyChannel> reply);

  // Cancels the request answering to `reply` (its HTTP client went away). Any thread.
  bool cancel_reply(const ReplyChannel* reply) {
    return worker_.cancel_reply(reply) || tasks_.cancel_waiting(reply);
  }

  // Tasks (2025-11-25) live in `store`, as `owner`'s: team mode shares one store among all its
  // connections so a reconnecting user finds their tasks. Without it, a store of this server's
  // own (stdio). Before the first message.
  void use_task_store(std::shared_ptr<TaskStore> store, std::string owner) {
    tasks_.use_store(std::move(store), std::move(owner));
  }
  // True while a task started on this connection is queued or running.
  bool running_tasks() const noexcept { return tasks_.busy(); }

  // The revision initialize chose, once it has run.
  std::optional<std::string> legacy_version() const;

  // Cancels what still runs, stops the worker and closes the backend's session. Idempotent.
  void shutdown();

 private:
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
  void submit_tool_call(std::shared_ptr<IncomingMessage> message, const ProtocolFeatures& features,
                        std::shared_ptr<ReplyChannel> reply);

  ToolCatalog& tools_;
  SessionBackend& backend_;
  log::Logger& logger_;
  ServerIdentity identity_;
  mutable std::mutex version_mutex_;
  std::optional<std::string> legacy_version_;  // set by initialize
  ToolCallWorker worker_;
  ConnectionTasks tasks_{worker_};
  std::once_flag shut_down_;
};

// Whether `method` is a request this server answers (else: method not found).
bool is_served_method(std::string_view method);

// A tools/call result object for `result` under `features` (content, structuredContent when the
// revision has it, isError).
rapidjson::Document call_tool_result(const ToolResult& result, const ProtocolFeatures& features);

}  // namespace kg::mcp
