// Runs the MCP server's tool calls one at a time on its own thread, in the order they arrived,
// so the reading thread stays free to answer pings and take notifications/cancelled while a
// program builds and runs. A cancelled call is taken off the queue, or, when it is running,
// interrupted (through the interrupt hook) and its answer suppressed: per MCP, a cancelled
// request gets no response and no further notifications.
//
// submit, cancel and stop are called from the reading thread; jobs run on the worker thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <memory>

#include "reply_channel.hpp"

namespace kg::mcp {

// What a job sees of its call while it runs.
class RunningCall {
 public:
  virtual ~RunningCall() = default;
  virtual bool cancelled() const = 0;
  // Sends a notification line for this call, unless the call was cancelled.
  virtual void notify(std::string_view line) = 0;
};

// Computes the call's response line; the worker writes it unless the call was cancelled.
using ToolCallJob = std::function<std::string(RunningCall& call)>;

class ToolCallWorker {
 public:
  struct Hooks {
    std::function<void()> before_each_call;  // worker thread, before a call is taken
    std::function<void()> interrupt_running;  // the cancelling thread, after marking the call
  };

  explicit ToolCallWorker(Hooks hooks);
  ~ToolCallWorker();
  ToolCallWorker(const ToolCallWorker&) = delete;
  ToolCallWorker& operator=(const ToolCallWorker&) = delete;

  // The job's notifications and its answer go to `reply`.
  void submit(std::string id_json, ToolCallJob job, std::shared_ptr<ReplyChannel> reply);

  // True when the call was queued (dropped now) or running (interrupted); false when it is
  // unknown or already answered, which MCP says to ignore.
  bool cancel(const std::string& id_json);

  // The same for the call answering to `reply` (a client that went away: ids are the client's
  // and need not be unique among several clients sharing one worker).
  bool cancel_reply(const ReplyChannel* reply);

  // Drops the queue, interrupts the running call and joins the thread. Idempotent.
  void stop();

 private:
  class Call;
  struct Pending {
    std::string id_json;
    ToolCallJob job;
    std::shared_ptr<ReplyChannel> reply;
  };
  void run();

  Hooks hooks_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  std::string running_id_;  // empty when idle
  const ReplyChannel* running_reply_ = nullptr;
  bool running_cancelled_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kg::mcp
