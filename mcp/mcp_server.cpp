#include "mcp_server.hpp"

#include "call_progress.hpp"
#include "error_chain.hpp"
#include "out_file_resources.hpp"

namespace kg::mcp {
namespace {

// `_meta.progressToken` as JSON text when it is a string or an integer.
std::optional<std::string> progress_token(const rapidjson::Value* params) {
  const rapidjson::Value* token = find_member(find_member(params, "_meta"), "progressToken");
  if (token == nullptr || !(token->IsString() || token->IsInt64() || token->IsUint64())) {
    return std::nullopt;
  }
  return to_json(*token);
}

}  // namespace

bool is_served_method(std::string_view method) {
  return method == "initialize" || method == "ping" || method == "tools/list" ||
         method == "tools/call" || method == "server/discover" || method == "prompts/list" ||
         method == "prompts/get" || method == "tasks/get" || method == "tasks/result" ||
         method == "tasks/cancel" || method == "tasks/list" || method == "resources/read" ||
         method == "resources/list";
}

McpServer::McpServer(ToolCatalog& tools, SessionBackend& backend, log::Logger& logger,
                     ServerIdentity identity)
    : tools_(tools),
      backend_(backend),
      logger_(logger),
      identity_(std::move(identity)),
      worker_({.before_each_call = [&backend] { backend.prepare_for_next_call(); },
               .interrupt_running = [&backend] { backend.cancel_running_call(); }}) {}

void McpServer::shutdown() {
  std::call_once(shut_down_, [this] {
    worker_.stop();  // ends this connection's queued and running tasks as cancelled
    tasks_.close();
    backend_.close_session();
  });
}

std::optional<std::string> McpServer::legacy_version() const {
  std::lock_guard lock(version_mutex_);
  return legacy_version_;
}

ProtocolFeatures McpServer::features_of(const IncomingMessage& message) const {
  // A request that carries the modern `_meta` fields is served statelessly under that revision.
  if (const std::optional<std::string> version = modern_request_version(message.params)) {
    if (*version != kModernVersion) {
      throw RpcError(RpcErrorCode::unsupported_protocol_version, "Unsupported protocol version",
                     message.id_json,
                     R"({"supported":)" + supported_versions_json() + R"(,"requested":)" +
                         to_json(rapidjson::Value(rapidjson::StringRef(version->c_str()))) + "}");
    }
    const rapidjson::Value* capabilities = find_member(
        find_member(message.params, "_meta"), kClientCapabilitiesMetaKey);
    if (capabilities == nullptr || !capabilities->IsObject()) {
      throw RpcError(RpcErrorCode::invalid_params,
                     "Invalid params: a 2026-07-28 request must carry _meta \"" +
                         std::string(kClientCapabilitiesMetaKey) + "\" (an object)",
                     message.id_json);
    }
    return features_for(kModernVersion);
  }
  if (const std::optional<std::string> version = legacy_version()) return features_for(*version);
  if (message.method == "ping") return features_for(kLatestLegacyVersion);  // allowed any time
  // Neither era: a legacy client that skipped initialize, or a modern one that left out _meta.
  throw RpcError(RpcErrorCode::invalid_params,
                 "Invalid params: \"" + message.method + "\" before initialize: send initialize "
                 "first (protocol 2025-11-25 and earlier), or carry _meta \"" +
                     std::string(kProtocolVersionMetaKey) + "\": \"" +
                     std::string(kModernVersion) + "\" and \"" +
                     std::string(kClientCapabilitiesMetaKey) + "\" in every request (" +
                     std::string(kModernVersion) + ")",
                 message.id_json);
}

void McpServer::handle(std::shared_ptr<IncomingMessage> message,
                       std::shared_ptr<ReplyChannel> reply) {
  if (message->kind == IncomingMessage::Kind::response) {
    logger_.log(log::LogLevel::debug, "Ignored a response (id " + message->id_json +
                                             "): this server sends no requests");
    return;
  }
  if (message->kind == IncomingMessage::Kind::notification) {
    on_notification(*message);
    return;
  }
  const std::string& id = message->id_json;
  logger_.log(log::LogLevel::debug, "Request " + id + ": " + message->method);
  try {
    if (!is_served_method(message->method)) {
      throw RpcError(RpcErrorCode::method_not_found,
                     "Method not found: " + message->method, id);
    }
    if (message->method == "initialize") {
      rapidjson::Document result = initialize_result(*message);
      reply->respond(result_line(id, to_json(result)));
      return;
    }
    const ProtocolFeatures features = features_of(*message);
    if (message->method == "server/discover" && !features.modern) {
      throw RpcError(RpcErrorCode::invalid_params,
                     "Invalid params: server/discover is a " + std::string(kModernVersion) +
                         " method: carry _meta \"" + std::string(kProtocolVersionMetaKey) +
                         "\" and \"" + std::string(kClientCapabilitiesMetaKey) + "\"",
                     id);
    }
    if (message->method == "ping") {
      rapidjson::Document empty(rapidjson::kObjectType);
      reply->respond(result_line(id, finish(std::move(empty), features)));
    } else if (message->method == "server/discover") {
      reply->respond(result_line(id, finish(discover_result(), features)));
    } else if (message->method == "tools/list") {
      reply->respond(result_line(id, finish(list_tools_result(features), features)));
    } else if (message->method == "prompts/list") {
      reply->respond(result_line(id, finish(list_prompts_result(features), features)));
    } else if (message->method == "prompts/get") {
      reply->respond(result_line(id, finish(get_prompt_result(*message), features)));
    } else if (message->method.starts_with("tasks/")) {
      if (!features.tasks) {
        throw RpcError(RpcErrorCode::method_not_found,
                       "Method not found: " + message->method + " (tasks are part of protocol " +
                           std::string(kLatestLegacyVersion) + " only; this request is " +
                           features.version + ")",
                       id);
      }
      tasks_.handle(message, reply);
    } else if (message->method == "resources/read") {
      reply->respond(result_line(id, finish(read_resource_result(backend_, *message), features)));
    } else if (message->method == "resources/list") {
      reply->respond(result_line(id, finish(list_resources_result(backend_), features)));
    } else {
      submit_tool_call(message, features, reply);
    }
  } catch (const RpcError& e) {
    logger_.log(log::LogLevel::warn,
                "Request " + id + " (" + message->method + "): " + e.what());
    reply->respond(error_line(id, e.code(), e.what(), e.data_json()));
  } catch (const std::exception& e) {
    const std::string what = kg::describe_error_chain(e);
    logger_.log(log::LogLevel::error, "Request " + id + ": " + what);
    reply->respond(error_line(id, RpcErrorCode::internal_error, "Internal error: " + what));
  }
}

void McpServer::on_notification(const IncomingMessage& message) {
  if (message.method == "notifications/cancelled") {
    const rapidjson::Value* request_id = find_member(message.params, "requestId");
    if (request_id == nullptr ||
        !(request_id->IsString() || request_id->IsInt64() || request_id->IsUint64())) {
      return;  // malformed: ignored, as MCP asks
    }
    const std::string id = to_json(*request_id);
    const bool known = worker_.cancel(id) || tasks_.cancel_waiting(id);
    logger_.log(log::LogLevel::info, "Request " + id + " cancelled by the client" +
                                            (known ? "" : " (not running: ignored)"));
    return;
  }
  // notifications/initialized and the rest need nothing from this server.
  logger_.log(log::LogLevel::debug, "Notification " + message.method);
}

void McpServer::submit_tool_call(std::shared_ptr<IncomingMessage> message,
                                 const ProtocolFeatures& features,
                                 std::shared_ptr<ReplyChannel> reply) {
  const rapidjson::Value* name = find_member(message->params, "name");
  if (name == nullptr || !name->IsString()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: tools/call needs \"name\", the tool's name (a string)",
                   message->id_json);
  }
  Tool* tool = tools_.find(name->GetString());
  if (tool == nullptr) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: unknown tool \"" + std::string(name->GetString()) +
                       "\"; the tools are " + tools_.names(),
                   message->id_json);
  }
  const rapidjson::Value* arguments = find_member(message->params, "arguments");
  if (arguments != nullptr && !arguments->IsObject() && !arguments->IsNull()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: tools/call \"arguments\" must be an object", message->id_json);
  }
  // A `task` asks for a task where the revision has them; elsewhere MCP says to ignore it.
  if (features.tasks && find_member(message->params, "task") != nullptr) {
    if (!ConnectionTasks::supports(*tool)) {
      throw RpcError(RpcErrorCode::method_not_found,
                     "Method not found: tool \"" + std::string(tool->name()) +
                         "\" does not run as a task (its execution.taskSupport is forbidden); "
                         "call it without \"task\"",
                     message->id_json);
    }
    tasks_.start(message, *tool, arguments,
                 [features](const ToolResult& result) { return call_tool_result(result, features); },
                 std::move(reply));
    return;
  }
  std::string id = message->id_json;
  std::optional<std::string> token = progress_token(message->params);
  worker_.submit(std::move(id), [this, message, features, tool, arguments,
                                 token = std::move(token)](RunningCall& call) {
    CallProgress context(call, token);
    const ToolResult result = tool->call(arguments, context);
    return result_line(message->id_json, finish(call_tool_result(result, features), features));
  }, std::move(reply));
}

}  // namespace kg::mcp
