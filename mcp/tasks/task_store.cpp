#include "task_store.hpp"


#include <algorithm>

#include "random_id.hpp"

namespace kg::mcp {
namespace {

using SystemClock = std::chrono::system_clock;

std::string random_task_id() { return codec::random_hex_id(16, "a task id"); }

void answer_all(std::vector<std::pair<std::shared_ptr<ReplyChannel>, std::string>>& answers) {
  for (auto& [reply, line] : answers) reply->respond(line);
}

}  // namespace

std::string_view task_status_name(TaskStatus status) noexcept {
  switch (status) {
    case TaskStatus::working: return "working";
    case TaskStatus::completed: return "completed";
    case TaskStatus::failed: return "failed";
    case TaskStatus::cancelled: return "cancelled";
  }
  return "failed";
}

void TaskStore::purge_expired(SystemClock::time_point now) {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    const TaskSnapshot& state = it->second.state;
    if (is_terminal(state.status) &&
        now - state.created_at > std::chrono::milliseconds(state.ttl_ms)) {
      it = tasks_.erase(it);
    } else {
      ++it;
    }
  }
}

TaskStore::Task* TaskStore::owned(const std::string& owner, const std::string& id) {
  purge_expired(SystemClock::now());
  const auto it = tasks_.find(id);
  if (it == tasks_.end() || it->second.owner != owner) return nullptr;
  return &it->second;
}

TaskSnapshot TaskStore::create(const std::string& owner,
                               std::optional<std::uint64_t> requested_ttl_ms,
                               TaskCanceller canceller) {
  const auto now = SystemClock::now();
  std::lock_guard lock(mutex_);
  purge_expired(now);
  std::size_t held = 0;
  auto oldest_finished = tasks_.end();
  for (auto it = tasks_.begin(); it != tasks_.end(); ++it) {
    if (it->second.owner != owner) continue;
    ++held;
    if (is_terminal(it->second.state.status) &&
        (oldest_finished == tasks_.end() ||
         it->second.state.created_at < oldest_finished->second.state.created_at)) {
      oldest_finished = it;
    }
  }
  if (held >= limits_.max_per_owner) {
    if (oldest_finished == tasks_.end()) {
      throw TaskLimitError("you have " + std::to_string(held) +
                           " tasks that have not finished, the most one requestor may hold; "
                           "wait for one to finish (tasks/get), or cancel one (tasks/cancel)");
    }
    tasks_.erase(oldest_finished);
  }
  Task task;
  task.owner = owner;
  task.state.id = random_task_id();
  task.state.status_message = "Queued: calls of one MCP session run one at a time";
  task.state.created_at = now;
  task.state.last_updated_at = now;
  task.state.ttl_ms = std::clamp(requested_ttl_ms.value_or(limits_.default_ttl_ms),
                                 limits_.min_ttl_ms, limits_.max_ttl_ms);
  task.state.poll_interval_ms = limits_.poll_interval_ms;
  task.canceller = std::move(canceller);
  TaskSnapshot snapshot = task.state;
  tasks_.emplace(snapshot.id, std::move(task));
  return snapshot;
}

std::optional<TaskSnapshot> TaskStore::get(const std::string& owner, const std::string& id) {
  std::lock_guard lock(mutex_);
  const Task* task = owned(owner, id);
  if (task == nullptr) return std::nullopt;
  return task->state;
}

std::vector<TaskSnapshot> TaskStore::list(const std::string& owner) {
  std::lock_guard lock(mutex_);
  purge_expired(SystemClock::now());
  std::vector<TaskSnapshot> found;
  for (const auto& [id, task] : tasks_) {
    if (task.owner == owner) found.push_back(task.state);
  }
  std::sort(found.begin(), found.end(), [](const TaskSnapshot& a, const TaskSnapshot& b) {
    return a.created_at < b.created_at;
  });
  return found;
}

std::vector<TaskStore::Answer> TaskStore::settle(Task& task, TaskStatus status,
                                                 std::string message,
                                                 std::optional<TaskOutcome> outcome) {
  task.state.status = status;
  task.state.status_message = std::move(message);
  task.state.last_updated_at = SystemClock::now();
  task.outcome = std::move(outcome);
  task.canceller = nullptr;
  std::vector<Answer> answers;
  for (Waiter& waiter : task.waiters) {
    answers.emplace_back(std::move(waiter.reply),
                         task_result_line(waiter.request_id_json, task.state, task.outcome));
  }
  task.waiters.clear();
  return answers;
}

TaskStore::CancelResult TaskStore::cancel(const std::string& owner, const std::string& id,
                                          TaskSnapshot& snapshot) {
  TaskCanceller canceller;
  std::vector<Answer> answers;
  {
    std::lock_guard lock(mutex_);
    Task* task = owned(owner, id);
    if (task == nullptr) return CancelResult::not_found;
    if (is_terminal(task->state.status)) {
      snapshot = task->state;
      return CancelResult::already_terminal;
    }
    canceller = std::move(task->canceller);
    answers = settle(*task, TaskStatus::cancelled, "The task was cancelled by request (tasks/cancel)",
                     std::nullopt);
    snapshot = task->state;
  }
  if (canceller) canceller(id);
  answer_all(answers);
  return CancelResult::cancelled;
}

void TaskStore::set_status_message(const std::string& id, std::string message) {
  std::lock_guard lock(mutex_);
  const auto it = tasks_.find(id);
  if (it == tasks_.end() || is_terminal(it->second.state.status)) return;
  it->second.state.status_message = std::move(message);
  it->second.state.last_updated_at = SystemClock::now();
}

void TaskStore::finish(const std::string& id, TaskStatus status, std::string message,
                       TaskOutcome outcome) {
  std::vector<Answer> answers;
  {
    std::lock_guard lock(mutex_);
    const auto it = tasks_.find(id);
    if (it == tasks_.end() || is_terminal(it->second.state.status)) return;
    answers = settle(it->second, status, std::move(message), std::move(outcome));
  }
  answer_all(answers);
}

void TaskStore::abandon(const std::string& id, std::string why) {
  std::vector<Answer> answers;
  {
    std::lock_guard lock(mutex_);
    const auto it = tasks_.find(id);
    if (it == tasks_.end() || is_terminal(it->second.state.status)) return;
    answers = settle(it->second, TaskStatus::cancelled, std::move(why), std::nullopt);
  }
  answer_all(answers);
}

TaskStore::AwaitResult TaskStore::await_result(const std::string& owner, const std::string& id,
                                               const std::string& request_id_json,
                                               std::shared_ptr<ReplyChannel> reply,
                                               const void* connection) {
  std::string line;
  {
    std::lock_guard lock(mutex_);
    Task* task = owned(owner, id);
    if (task == nullptr) return AwaitResult::not_found;
    if (!is_terminal(task->state.status)) {
      task->waiters.push_back({request_id_json, std::move(reply), connection});
      return AwaitResult::waiting;
    }
    line = task_result_line(request_id_json, task->state, task->outcome);
  }
  reply->respond(line);
  return AwaitResult::answered;
}

bool TaskStore::drop_waiter(const void* connection, const std::string& request_id_json) {
  std::vector<std::shared_ptr<ReplyChannel>> dropped;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, task] : tasks_) {
      std::erase_if(task.waiters, [&](Waiter& waiter) {
        if (waiter.connection != connection || waiter.request_id_json != request_id_json) {
          return false;
        }
        dropped.push_back(std::move(waiter.reply));
        return true;
      });
    }
  }
  for (auto& reply : dropped) reply->end_unanswered();
  return !dropped.empty();
}

bool TaskStore::drop_waiter(const ReplyChannel* reply) {
  std::vector<std::shared_ptr<ReplyChannel>> dropped;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, task] : tasks_) {
      std::erase_if(task.waiters, [&](Waiter& waiter) {
        if (waiter.reply.get() != reply) return false;
        dropped.push_back(std::move(waiter.reply));
        return true;
      });
    }
  }
  for (auto& channel : dropped) channel->end_unanswered();
  return !dropped.empty();
}

void TaskStore::drop_waiters(const void* connection) {
  std::vector<std::shared_ptr<ReplyChannel>> dropped;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, task] : tasks_) {
      std::erase_if(task.waiters, [&](Waiter& waiter) {
        if (waiter.connection != connection) return false;
        dropped.push_back(std::move(waiter.reply));
        return true;
      });
    }
  }
  for (auto& reply : dropped) reply->end_unanswered();
}

}  // namespace kg::mcp
