#include "call_progress.hpp"

#include "json_rpc.hpp"

namespace kg::mcp {

int phase_step(std::string_view phase) noexcept {
  if (phase == "setup") return 1;
  if (phase == "build") return 2;
  if (phase == "run") return 3;
  return 0;
}

std::string progress_line(std::string_view token_json, int step, std::string_view message) {
  rapidjson::Value text(rapidjson::StringRef(message.data(), message.size()));
  std::string params = R"({"progressToken":)";
  params += token_json;
  params += R"(,"progress":)" + std::to_string(step);
  params += R"(,"total":)" + std::to_string(kPhaseSteps);
  params += R"(,"message":)" + to_json(text) + "}";
  return notification_line("notifications/progress", params);
}

void CallProgress::phase_reached(std::string_view phase, std::string_view detail) {
  const int step = phase_step(phase);
  if (!token_ || step <= last_step_) return;
  last_step_ = step;
  std::string message(phase);
  if (!detail.empty()) {
    message += ": ";
    message += detail;
  }
  call_.notify(progress_line(*token_, step, message));
}

}  // namespace kg::mcp
