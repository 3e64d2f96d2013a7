// The ToolCallContext of one tools/call: turns the daemon's phase boundaries into MCP
// `notifications/progress` {progressToken, progress 1..3, total 3, message "<phase>: <detail>"}
// when the request carried `_meta.progressToken`, and tells the tool whether the client
// cancelled. Progress only ever increases (MCP requires it), so a phase reported twice (the
// daemon's setup sends several lines while it prewarms) is reported once.
// The program's output, as it is printed, goes out as further notifications/progress whose
// `message` is the text (output_coalescer.hpp bounds them) and whose `progress` goes on counting
// up from the phases' (no `total`: how much a program prints is not known).
// Lives on the worker thread for the duration of one call; its destructor sends output still
// waiting, before the call's answer.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "output_coalescer.hpp"

#include "tool.hpp"
#include "tool_call_worker.hpp"

namespace kg::mcp {

class CallProgress final : public ToolCallContext {
 public:
  // progress_token_json: the token's JSON text, or nullopt when the client asked for no progress.
  CallProgress(RunningCall& call, std::optional<std::string> progress_token_json)
      : call_(call), token_(std::move(progress_token_json)) {}

  ~CallProgress() override { output_.reset(); }  // sends what waits first

  void phase_reached(std::string_view phase, std::string_view detail) override;
  void output_printed(const ProgramOutput& output) override;
  bool cancelled() const override { return call_.cancelled(); }

 private:
  RunningCall& call_;
  std::optional<std::string> token_;
  std::mutex mutex_;  // last_step_ and the order of notifications (output comes from a timer)
  int last_step_ = 0;
  std::unique_ptr<OutputCoalescer> output_;  // made on the first output, with a token
};

// 1 for setup, 2 for build, 3 for run, 0 for a phase this server does not know.
int phase_step(std::string_view phase) noexcept;
inline constexpr int kPhaseSteps = 3;

// The notifications/progress line; total 0: none (output notifications).
std::string progress_line(std::string_view token_json, int step, std::string_view message,
                          int total = kPhaseSteps);

}  // namespace kg::mcp
