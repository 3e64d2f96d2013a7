#include "call_progress.hpp"

#include <algorithm>

#include "json_rpc.hpp"
#include "utf8_text.hpp"

namespace kg::mcp {

int phase_step(std::string_view phase) noexcept {
  if (phase == "setup") return 1;
  if (phase == "build") return 2;
  if (phase == "run") return 3;
  return 0;
}

std::string progress_line(std::string_view token_json, int step, std::string_view message,
                          int total) {
  rapidjson::Value text(rapidjson::StringRef(message.data(), message.size()));
  std::string params = R"({"progressToken":)";
  params += token_json;
  params += R"(,"progress":)" + std::to_string(step);
  if (total > 0) params += R"(,"total":)" + std::to_string(total);
  params += R"(,"message":)" + to_json(text) + "}";
  return notification_line("notifications/progress", params);
}

void CallProgress::phase_reached(std::string_view phase, std::string_view detail) {
  const int step = phase_step(phase);
  const std::lock_guard lock(mutex_);
  if (!token_ || step <= last_step_) return;
  last_step_ = step;
  std::string message(phase);
  if (!detail.empty()) {
    message += ": ";
    message += detail;
  }
  call_.notify(progress_line(*token_, step, message));
}

void CallProgress::output_printed(const ProgramOutput& output) {
  if (!token_) return;
  if (!output_) {
    output_ = std::make_unique<OutputCoalescer>([this](const std::string& text) {
      const std::lock_guard lock(mutex_);
      // Progress only increases: output counts on from the last phase (MCP requires it).
      last_step_ = std::max(last_step_, kPhaseSteps) + 1;
      call_.notify(progress_line(*token_, last_step_, json::to_valid_utf8(text), 0));
    });
  }
  output_->add(output);
}

}  // namespace kg::mcp
