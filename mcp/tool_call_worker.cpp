#include "tool_call_worker.hpp"

#include <algorithm>

#include "json_rpc.hpp"

namespace kg::mcp {

class ToolCallWorker::Call final : public RunningCall {
 public:
  Call(ToolCallWorker& worker, ReplyChannel& reply) : worker_(worker), reply_(reply) {}
  bool cancelled() const override {
    std::lock_guard lock(worker_.mutex_);
    return worker_.running_cancelled_;
  }
  void notify(std::string_view line) override {
    if (!cancelled()) reply_.notify(line);
  }

 private:
  ToolCallWorker& worker_;
  ReplyChannel& reply_;
};

ToolCallWorker::ToolCallWorker(Hooks hooks)
    : hooks_(std::move(hooks)), thread_([this] { run(); }) {}

ToolCallWorker::~ToolCallWorker() { stop(); }

void ToolCallWorker::submit(std::string id_json, ToolCallJob job,
                            std::shared_ptr<ReplyChannel> reply) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      queue_.push_back({std::move(id_json), std::move(job), std::move(reply)});
      reply = nullptr;
    }
  }
  if (reply) {
    reply->end_unanswered();
    return;
  }
  wake_.notify_one();
}

bool ToolCallWorker::cancel(const std::string& id_json) {
  std::shared_ptr<ReplyChannel> dropped;
  {
    std::lock_guard lock(mutex_);
    const auto queued = std::find_if(queue_.begin(), queue_.end(),
                                     [&](const Pending& p) { return p.id_json == id_json; });
    if (queued != queue_.end()) {
      dropped = std::move(queued->reply);
      queue_.erase(queued);
    }
  }
  if (dropped) {
    dropped->end_unanswered();
    return true;
  }
  {
    std::lock_guard lock(mutex_);
    if (running_id_ != id_json || running_cancelled_) return false;
    running_cancelled_ = true;
  }
  if (hooks_.interrupt_running) hooks_.interrupt_running();
  return true;
}

bool ToolCallWorker::cancel_reply(const ReplyChannel* reply) {
  std::shared_ptr<ReplyChannel> dropped;
  {
    std::lock_guard lock(mutex_);
    const auto queued = std::find_if(queue_.begin(), queue_.end(),
                                     [&](const Pending& p) { return p.reply.get() == reply; });
    if (queued != queue_.end()) {
      dropped = std::move(queued->reply);
      queue_.erase(queued);
    } else if (running_reply_ != reply || running_cancelled_) {
      return false;
    } else {
      running_cancelled_ = true;
    }
  }
  if (dropped) {
    dropped->end_unanswered();
    return true;
  }
  if (hooks_.interrupt_running) hooks_.interrupt_running();
  return true;
}

void ToolCallWorker::stop() {
  bool interrupt = false;
  std::deque<Pending> dropped;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    dropped.swap(queue_);
    if (!running_id_.empty() && !running_cancelled_) {
      running_cancelled_ = true;
      interrupt = true;
    }
  }
  wake_.notify_one();
  for (Pending& pending : dropped) pending.reply->end_unanswered();
  if (interrupt && hooks_.interrupt_running) hooks_.interrupt_running();
  if (thread_.joinable()) thread_.join();
}

void ToolCallWorker::run() {
  for (;;) {
    // Before taking a call, so a cancellation of the call about to start is never forgotten.
    if (hooks_.before_each_call) hooks_.before_each_call();
    Pending pending;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      pending = std::move(queue_.front());
      queue_.pop_front();
      running_id_ = pending.id_json;
      running_reply_ = pending.reply.get();
      running_cancelled_ = false;
    }
    Call call(*this, *pending.reply);
    std::string response;
    try {
      response = pending.job(call);
    } catch (const std::exception& e) {  // jobs answer their own failures; this is a bug
      response = error_line(pending.id_json, RpcErrorCode::internal_error,
                            std::string("Internal error: ") + e.what());
    }
    {
      std::lock_guard lock(mutex_);
      running_id_.clear();
      running_reply_ = nullptr;
      if (running_cancelled_) {
        pending.reply->end_unanswered();
        continue;
      }
    }
    pending.reply->respond(response);
  }
}

}  // namespace kg::mcp
