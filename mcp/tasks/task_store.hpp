// The tasks of MCP 2025-11-25 (docs/mcp.md, "Long calls as tasks"): every task a connection's
// requestor created, bound to its owner (the signed-in user in team mode, the process's one
// client on stdio), with its status, its final result once it has one, and the tasks/result
// requests waiting for that result. In team mode one store serves every MCP session of the
// daemon, so a client that reconnects (a new session of the same user) still finds its tasks;
// another owner's task is as unknown as a made-up id.
//
// Bounded: a task lives `ttl` ms from its creation (asked for by the client, at most
// TaskLimits' bounds), after which a finished task is forgotten; an owner holds at most
// max_per_owner tasks (the oldest finished one makes room; when none has finished, creation is
// refused). Held in memory: tasks end with the process that holds them (the daemon, or
// `kode-gopher serve` on stdio).
//
// Thread-safe. Waiting replies are answered, and cancellers called, outside the store's lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "json_rpc.hpp"
#include "reply_channel.hpp"

namespace kg::mcp {

struct TaskLimits {
  std::uint64_t default_ttl_ms = 3'600'000;  // a task without `ttl`: one hour
  std::uint64_t max_ttl_ms = 86'400'000;     // a longer `ttl` is cut to one day
  std::uint64_t min_ttl_ms = 60'000;         // a shorter one is raised to a minute, to be fetched
  std::size_t max_per_owner = 16;
  std::uint64_t poll_interval_ms = 1'000;    // suggested to pollers
};

enum class TaskStatus { working, completed, failed, cancelled };
std::string_view task_status_name(TaskStatus status) noexcept;
inline bool is_terminal(TaskStatus status) noexcept { return status != TaskStatus::working; }

// What a task looks like to its owner (the Task object of the protocol).
struct TaskSnapshot {
  std::string id;
  TaskStatus status = TaskStatus::working;
  std::string status_message;
  std::chrono::system_clock::time_point created_at;
  std::chrono::system_clock::time_point last_updated_at;
  std::uint64_t ttl_ms = 0;
  std::uint64_t poll_interval_ms = 0;
};

// What the task's request answered: its result object (JSON text), or a JSON-RPC error.
struct TaskOutcome {
  std::optional<std::string> result_json;
  RpcErrorCode error_code = RpcErrorCode::internal_error;
  std::string error_message;
};

// Stops a task's work (it runs elsewhere: a connection's tool-call worker). Any thread; never
// throws; a no-op once that work has ended.
using TaskCanceller = std::function<void(const std::string& task_id)>;

// The owner has max_per_owner tasks and none has finished.
class TaskLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TaskStore {
 public:
  explicit TaskStore(TaskLimits limits = {}) : limits_(limits) {}

  const TaskLimits& limits() const noexcept { return limits_; }

  // A new working task of `owner`; its id is 128 random bits from the kernel. requested_ttl_ms:
  // the client's `ttl`, if any. Throws TaskLimitError.
  TaskSnapshot create(const std::string& owner, std::optional<std::uint64_t> requested_ttl_ms,
                      TaskCanceller canceller);

  // nullopt for an unknown, expired or another owner's task.
  std::optional<TaskSnapshot> get(const std::string& owner, const std::string& id);
  // The owner's tasks, oldest first.
  std::vector<TaskSnapshot> list(const std::string& owner);

  enum class CancelResult { not_found, already_terminal, cancelled };
  // Moves a working task to cancelled (then stops its work); `snapshot` gets its state either way.
  CancelResult cancel(const std::string& owner, const std::string& id, TaskSnapshot& snapshot);

  // The running work's progress, shown as statusMessage while the task is working.
  void set_status_message(const std::string& id, std::string message);
  // The work ended: a working task takes `status` (completed or failed) and keeps `outcome`; a
  // task already cancelled stays cancelled. Answers the tasks/result requests waiting for it.
  void finish(const std::string& id, TaskStatus status, std::string message, TaskOutcome outcome);
  // The work will never run or end (its connection closed first): the task becomes cancelled.
  void abandon(const std::string& id, std::string why);

  enum class AwaitResult { not_found, answered, waiting };
  // A tasks/result request (id `request_id_json`, answered on `reply`): answered at once when the
  // task has finished, else when it does. `connection` names the MCP server that took the
  // request, so its waiters can be dropped when it goes.
  AwaitResult await_result(const std::string& owner, const std::string& id,
                           const std::string& request_id_json,
                           std::shared_ptr<ReplyChannel> reply, const void* connection);
  // Ends waiting tasks/result requests unanswered: the one with this id on `connection` (the
  // client cancelled it), every one on `reply` (its HTTP client went away), or every one of
  // `connection` (it closed). True when one was found.
  bool drop_waiter(const void* connection, const std::string& request_id_json);
  bool drop_waiter(const ReplyChannel* reply);
  void drop_waiters(const void* connection);

 private:
  struct Waiter {
    std::string request_id_json;
    std::shared_ptr<ReplyChannel> reply;
    const void* connection = nullptr;
  };
  struct Task {
    std::string owner;
    TaskSnapshot state;
    std::optional<TaskOutcome> outcome;  // once terminal (none when cancelled)
    TaskCanceller canceller;
    std::vector<Waiter> waiters;
  };
  using Answer = std::pair<std::shared_ptr<ReplyChannel>, std::string>;

  // Forgets finished tasks past their ttl. Needs mutex_.
  void purge_expired(std::chrono::system_clock::time_point now);
  Task* owned(const std::string& owner, const std::string& id);
  // Moves a working task to `status` and collects the answers for its waiters. Needs mutex_.
  std::vector<Answer> settle(Task& task, TaskStatus status, std::string message,
                             std::optional<TaskOutcome> outcome);

  TaskLimits limits_;
  std::mutex mutex_;
  std::map<std::string, Task> tasks_;  // by id
};

// The tasks/result answer for a finished task: exactly what its request answered, with the
// related-task `_meta` the protocol asks for (an error for a task that was cancelled).
std::string task_result_line(const std::string& request_id_json, const TaskSnapshot& task,
                             const std::optional<TaskOutcome>& outcome);

}  // namespace kg::mcp
