// The JSON of MCP 2025-11-25 tasks: the Task object, CreateTaskResult, the related-task `_meta`,
// and the two params a task request carries (`task` on tools/call, `taskId` on tasks/*), read
// with messages that say what to send instead. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "json_rpc.hpp"
#include "task_store.hpp"

namespace kg::mcp {

inline constexpr std::string_view kRelatedTaskMetaKey = "io.modelcontextprotocol/related-task";

// The Task object: taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval.
rapidjson::Value task_object(const TaskSnapshot& task,
                             rapidjson::Document::AllocatorType& allocator);
// The Task object as JSON text: the answer to tasks/get and tasks/cancel.
std::string task_json(const TaskSnapshot& task);
// {"task": Task}: the answer to a task-augmented request.
std::string create_task_result_json(const TaskSnapshot& task);
// `_meta` {"io.modelcontextprotocol/related-task": {"taskId"}} added to a result object.
void add_related_task(rapidjson::Document& result, const std::string& task_id);

// A tools/call's `task` param: nullopt when there is none; else the `ttl` it asks for (nullopt
// when it names none). Throws RpcError (invalid params) for a `task` that is not an object or a
// `ttl` that is not a non-negative integer.
std::optional<std::optional<std::uint64_t>> task_request(const IncomingMessage& message);
// The `taskId` of a tasks/get, tasks/result or tasks/cancel. Throws RpcError (invalid params).
std::string task_id_param(const IncomingMessage& message);

}  // namespace kg::mcp
