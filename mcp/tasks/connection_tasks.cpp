#include "connection_tasks.hpp"

#include "task_json.hpp"

namespace kg::mcp {
namespace {

constexpr std::string_view kTaskTool = "execute_go_code";

// The worker's id for a task's job: not the JSON text of any request id, so a client's
// notifications/cancelled can never name it.
std::string job_id(const std::string& task_id) { return "task " + task_id; }

// What the tool sees while it runs as a task: its phases become the task's statusMessage.
class TaskCallContext final : public ToolCallContext {
 public:
  TaskCallContext(RunningCall& call, TaskStore& store, std::string task_id)
      : call_(call), store_(store), task_id_(std::move(task_id)) {}
  void phase_reached(std::string_view phase, std::string_view detail) override {
    std::string message(phase);
    if (!detail.empty()) message += ": " + std::string(detail);
    store_.set_status_message(task_id_, std::move(message));
  }
  bool cancelled() const override { return call_.cancelled(); }

 private:
  RunningCall& call_;
  TaskStore& store_;
  std::string task_id_;
};

// The worker's reply channel for a task's job. The job records the result itself; this channel
// hears only that the job ended, or that it never ran (dropped by tasks/cancel, or by the
// connection closing), which leaves the task cancelled.
class TaskJobChannel final : public ReplyChannel {
 public:
  TaskJobChannel(std::shared_ptr<TaskStore> store, std::string task_id,
                 std::shared_ptr<std::atomic<int>> unfinished)
      : store_(std::move(store)), task_id_(std::move(task_id)), unfinished_(std::move(unfinished)) {
    ++*unfinished_;
  }
  void notify(std::string_view) override {}
  void respond(std::string_view) override { ended(); }
  void end_unanswered() noexcept override {
    store_->abandon(task_id_, "The task was cancelled: its MCP connection closed before it ended");
    ended();
  }

 private:
  void ended() noexcept {
    if (!ended_.exchange(true)) --*unfinished_;
  }
  std::shared_ptr<TaskStore> store_;
  std::string task_id_;
  std::shared_ptr<std::atomic<int>> unfinished_;
  std::atomic<bool> ended_{false};
};

// The statusMessage of a finished task: for a failure, what went wrong in a line.
std::string finished_message(const ToolResult& result) {
  if (!result.is_error) return "The call finished; tasks/result has its result";
  std::string first = result.text.substr(0, result.text.find('\n'));
  if (first.size() > 300) first = first.substr(0, 300) + "...";
  return "The call's result has isError: true (" + first + "); tasks/result has the whole result";
}

RpcError not_found(const IncomingMessage& message, const std::string& task_id) {
  return RpcError(RpcErrorCode::invalid_params,
                  "Failed to retrieve task: Task not found: no task \"" + task_id +
                      "\" of yours (it never existed, belongs to someone else, or expired past "
                      "its ttl); tasks/list shows yours",
                  message.id_json);
}

}  // namespace

ConnectionTasks::ConnectionTasks(ToolCallWorker& worker)
    : worker_(worker),
      link_(std::make_shared<WorkerLink>()),
      store_(std::make_shared<TaskStore>()),
      owner_("stdio") {
  link_->worker = &worker_;
}

void ConnectionTasks::use_store(std::shared_ptr<TaskStore> store, std::string owner) {
  store_ = std::move(store);
  owner_ = std::move(owner);
}

bool ConnectionTasks::supports(const Tool& tool) { return tool.name() == kTaskTool; }

void ConnectionTasks::add_capabilities(rapidjson::Value& capabilities,
                                       rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value call(rapidjson::kObjectType);
  rapidjson::Value tools(rapidjson::kObjectType);
  tools.AddMember("call", call, allocator);
  rapidjson::Value requests(rapidjson::kObjectType);
  requests.AddMember("tools", tools, allocator);
  rapidjson::Value tasks(rapidjson::kObjectType);
  tasks.AddMember("list", rapidjson::Value(rapidjson::kObjectType), allocator);
  tasks.AddMember("cancel", rapidjson::Value(rapidjson::kObjectType), allocator);
  tasks.AddMember("requests", requests, allocator);
  capabilities.AddMember("tasks", tasks, allocator);
}

void ConnectionTasks::mark_tools(rapidjson::Value& tools,
                                 rapidjson::Document::AllocatorType& allocator) {
  if (!tools.IsArray()) return;
  for (auto& tool : tools.GetArray()) {
    const rapidjson::Value* name = find_member(&tool, "name");
    if (name == nullptr || !name->IsString() ||
        std::string_view(name->GetString(), name->GetStringLength()) != kTaskTool) {
      continue;
    }
    rapidjson::Value execution(rapidjson::kObjectType);
    execution.AddMember("taskSupport", "optional", allocator);
    tool.AddMember("execution", execution, allocator);
  }
}

void ConnectionTasks::start(std::shared_ptr<IncomingMessage> message, Tool& tool,
                            const rapidjson::Value* arguments,
                            std::function<rapidjson::Document(const ToolResult&)> finish_result,
                            std::shared_ptr<ReplyChannel> reply) {
  const std::optional<std::optional<std::uint64_t>> requested = task_request(*message);
  std::weak_ptr<WorkerLink> link = link_;
  TaskSnapshot task;
  try {
    task = store_->create(owner_, requested.value_or(std::nullopt),
                          [link](const std::string& task_id) {
                            const std::shared_ptr<WorkerLink> held = link.lock();
                            if (!held) return;
                            std::lock_guard lock(held->mutex);
                            if (held->worker != nullptr) held->worker->cancel(job_id(task_id));
                          });
  } catch (const TaskLimitError& e) {
    throw RpcError(RpcErrorCode::invalid_request,
                   std::string("Cannot create a task: ") + e.what(), message->id_json);
  }
  // The answer goes first: MCP wants CreateTaskResult as soon as the task is accepted.
  reply->respond(result_line(message->id_json, create_task_result_json(task)));
  auto channel = std::make_shared<TaskJobChannel>(store_, task.id, unfinished_);
  worker_.submit(
      job_id(task.id),
      [store = store_, task_id = task.id, message, &tool, arguments,
       finish_result = std::move(finish_result)](RunningCall& call) {
        TaskCallContext context(call, *store, task_id);
        store->set_status_message(task_id, "Running");
        const ToolResult result = tool.call(arguments, context);
        if (!call.cancelled()) {
          rapidjson::Document object = finish_result(result);
          add_related_task(object, task_id);
          TaskOutcome outcome;
          outcome.result_json = to_json(object);
          store->finish(task_id, result.is_error ? TaskStatus::failed : TaskStatus::completed,
                        finished_message(result), std::move(outcome));
        }
        return std::string();
      },
      std::move(channel));
}

void ConnectionTasks::handle(std::shared_ptr<IncomingMessage> message,
                             std::shared_ptr<ReplyChannel> reply) {
  const std::string& method = message->method;
  if (method == "tasks/list") {
    const rapidjson::Value* cursor = find_member(message->params, "cursor");
    if (cursor != nullptr && !cursor->IsNull()) {
      throw RpcError(RpcErrorCode::invalid_params,
                     "Invalid params: unknown cursor: this server lists every task in one page "
                     "and gives no nextCursor; send tasks/list without \"cursor\"",
                     message->id_json);
    }
    rapidjson::Document result(rapidjson::kObjectType);
    auto& allocator = result.GetAllocator();
    rapidjson::Value tasks(rapidjson::kArrayType);
    for (const TaskSnapshot& task : store_->list(owner_)) {
      tasks.PushBack(task_object(task, allocator), allocator);
    }
    result.AddMember("tasks", tasks, allocator);
    reply->respond(result_line(message->id_json, to_json(result)));
    return;
  }
  const std::string task_id = task_id_param(*message);
  if (method == "tasks/get") {
    const std::optional<TaskSnapshot> task = store_->get(owner_, task_id);
    if (!task) throw not_found(*message, task_id);
    reply->respond(result_line(message->id_json, task_json(*task)));
  } else if (method == "tasks/result") {
    const TaskStore::AwaitResult awaited =
        store_->await_result(owner_, task_id, message->id_json, reply, this);
    if (awaited == TaskStore::AwaitResult::not_found) throw not_found(*message, task_id);
  } else if (method == "tasks/cancel") {
    TaskSnapshot task;
    switch (store_->cancel(owner_, task_id, task)) {
      case TaskStore::CancelResult::not_found:
        throw not_found(*message, task_id);
      case TaskStore::CancelResult::already_terminal:
        throw RpcError(RpcErrorCode::invalid_params,
                       "Cannot cancel task: already in terminal status '" +
                           std::string(task_status_name(task.status)) +
                           "'; tasks/result has what it ended with",
                       message->id_json);
      case TaskStore::CancelResult::cancelled: {
        reply->respond(result_line(message->id_json, task_json(task)));
        break;
      }
    }
  } else {
    throw RpcError(RpcErrorCode::method_not_found, "Method not found: " + method,
                   message->id_json);
  }
}

bool ConnectionTasks::cancel_waiting(const std::string& request_id_json) {
  return store_->drop_waiter(this, request_id_json);
}

bool ConnectionTasks::cancel_waiting(const ReplyChannel* reply) {
  return store_->drop_waiter(reply);
}

void ConnectionTasks::close() {
  {
    std::lock_guard lock(link_->mutex);
    if (link_->worker == nullptr) return;
    link_->worker = nullptr;
  }
  store_->drop_waiters(this);
}

}  // namespace kg::mcp
