#include "task_json.hpp"

#include "utc_time.hpp"

namespace kg::mcp {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

rapidjson::Value text(std::string_view value, Allocator& allocator) {
  return rapidjson::Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator);
}

}  // namespace

rapidjson::Value task_object(const TaskSnapshot& task, Allocator& allocator) {
  rapidjson::Value object(rapidjson::kObjectType);
  object.AddMember("taskId", text(task.id, allocator), allocator);
  object.AddMember("status", text(task_status_name(task.status), allocator), allocator);
  if (!task.status_message.empty()) {
    object.AddMember("statusMessage", text(task.status_message, allocator), allocator);
  }
  object.AddMember("createdAt", text(utc::to_rfc3339_millis(task.created_at), allocator),
                   allocator);
  object.AddMember("lastUpdatedAt", text(utc::to_rfc3339_millis(task.last_updated_at), allocator),
                   allocator);
  object.AddMember("ttl", task.ttl_ms, allocator);
  object.AddMember("pollInterval", task.poll_interval_ms, allocator);
  return object;
}

std::string task_json(const TaskSnapshot& task) {
  rapidjson::Document allocation;
  return to_json(task_object(task, allocation.GetAllocator()));
}

std::string create_task_result_json(const TaskSnapshot& task) {
  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  result.AddMember("task", task_object(task, allocator), allocator);
  return to_json(result);
}

void add_related_task(rapidjson::Document& result, const std::string& task_id) {
  auto& allocator = result.GetAllocator();
  rapidjson::Value related(rapidjson::kObjectType);
  related.AddMember("taskId", text(task_id, allocator), allocator);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember(text(kRelatedTaskMetaKey, allocator), related, allocator);
  result.AddMember("_meta", meta, allocator);
}

std::string task_result_line(const std::string& request_id_json, const TaskSnapshot& task,
                             const std::optional<TaskOutcome>& outcome) {
  if (!outcome) {  // cancelled: the request it wrapped never answered
    return error_line(request_id_json, RpcErrorCode::invalid_params,
                      "Task " + task.id + " was cancelled and has no result (" +
                          task.status_message + "); run the call again to get one");
  }
  if (outcome->result_json) return result_line(request_id_json, *outcome->result_json);
  return error_line(request_id_json, outcome->error_code, outcome->error_message);
}

std::optional<std::optional<std::uint64_t>> task_request(const IncomingMessage& message) {
  const rapidjson::Value* task = find_member(message.params, "task");
  if (task == nullptr) return std::nullopt;
  if (!task->IsObject()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: tools/call \"task\" must be an object such as {\"ttl\": "
                   "600000} (or {} for the server's default lifetime)",
                   message.id_json);
  }
  const rapidjson::Value* ttl = find_member(task, "ttl");
  if (ttl == nullptr || ttl->IsNull()) return std::optional<std::uint64_t>();
  if (!ttl->IsUint64()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: \"task\".\"ttl\" must be a whole number of milliseconds "
                   "(0 or more), e.g. 600000",
                   message.id_json);
  }
  return std::optional<std::uint64_t>(ttl->GetUint64());
}

std::string task_id_param(const IncomingMessage& message) {
  const rapidjson::Value* id = find_member(message.params, "taskId");
  if (id == nullptr || !id->IsString()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: " + message.method +
                       " needs \"taskId\", the id tools/call answered in its task (a string)",
                   message.id_json);
  }
  return std::string(id->GetString(), id->GetStringLength());
}

}  // namespace kg::mcp
