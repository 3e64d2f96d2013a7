// One MCP connection's side of tasks (MCP 2025-11-25, docs/mcp.md "Long calls as tasks"): what
// McpServer hands over for a revision that has them. It declares the `tasks` capability and
// execute_go_code's `execution.taskSupport: "optional"`, turns a tools/call carrying `task` into a
// task (answered at once with CreateTaskResult; the call itself queued on the connection's
// ToolCallWorker like any other, so it runs in the same daemon session, one at a time), and
// answers tasks/get, tasks/result (held until the task finishes), tasks/cancel (which stops the
// program) and tasks/list from the TaskStore, for this connection's owner only.
//
// The store may be shared by many connections (team mode: every session of the daemon); a task
// started here can be polled, fetched and cancelled from another connection of the same owner.
// A connection that closes ends its queued and running tasks as cancelled.
//
// Threads: start / handle / cancel_waiting from the server's reading thread (serialized),
// cancel_waiting(reply) and busy from any thread; close once, after the worker has stopped.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include <rapidjson/document.h>

#include "json_rpc.hpp"
#include "protocol_versions.hpp"
#include "reply_channel.hpp"
#include "task_store.hpp"
#include "tool.hpp"
#include "tool_call_worker.hpp"

namespace kg::mcp {

class ConnectionTasks {
 public:
  explicit ConnectionTasks(ToolCallWorker& worker);
  ~ConnectionTasks() { close(); }

  // The store and the owner this connection's tasks belong to (before any message). Without a
  // call, a store of its own and one owner: right for stdio, where one client owns the process.
  void use_store(std::shared_ptr<TaskStore> store, std::string owner);

  // Whether `tool` may run as a task (execute_go_code).
  static bool supports(const Tool& tool);
  // Adds `tasks` {list, cancel, requests.tools.call} to the server capabilities.
  static void add_capabilities(rapidjson::Value& capabilities,
                               rapidjson::Document::AllocatorType& allocator);
  // Adds `execution` {"taskSupport": "optional"} to the tools that support tasks.
  static void mark_tools(rapidjson::Value& tools, rapidjson::Document::AllocatorType& allocator);

  // A tools/call with `task`: creates the task, answers CreateTaskResult on `reply`, queues the
  // call. `finish_result` turns the tool's result into the tools/call result object. Throws
  // RpcError for a bad `task` or too many tasks.
  void start(std::shared_ptr<IncomingMessage> message, Tool& tool,
             const rapidjson::Value* arguments,
             std::function<rapidjson::Document(const ToolResult&)> finish_result,
             std::shared_ptr<ReplyChannel> reply);
  // tasks/get, tasks/result, tasks/cancel, tasks/list. Throws RpcError.
  void handle(std::shared_ptr<IncomingMessage> message, std::shared_ptr<ReplyChannel> reply);

  // A waiting tasks/result ends unanswered (the client cancelled it, or went away).
  bool cancel_waiting(const std::string& request_id_json);
  bool cancel_waiting(const ReplyChannel* reply);

  // True while a task started here is queued or running.
  bool busy() const noexcept { return unfinished_->load() > 0; }

  // Stops cancelling through the worker and ends this connection's waiting requests. Idempotent.
  void close();

 private:
  // The worker, for cancellers that may outlive this connection: null once it closed.
  struct WorkerLink {
    std::mutex mutex;
    ToolCallWorker* worker = nullptr;
  };

  ToolCallWorker& worker_;
  std::shared_ptr<WorkerLink> link_;
  std::shared_ptr<TaskStore> store_;
  std::string owner_;
  std::shared_ptr<std::atomic<int>> unfinished_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace kg::mcp
