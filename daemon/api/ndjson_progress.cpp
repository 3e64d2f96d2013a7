#include "ndjson_progress.hpp"

#include "daemon_api/progress_line.hpp"

namespace kg::api {

void NdjsonProgress::phase_started(plugin::Phase phase, std::string_view detail) noexcept {
  try {
    write_line(wire::daemon_api::encode_progress_line(
        {std::string(plugin::to_string(phase)), std::string(detail)}));
  } catch (...) {
  }
}

void NdjsonProgress::printed(const wire::sandbox_api::OutputPiece& piece) noexcept {
  try {
    write_line(wire::sandbox_api::encode_output_piece(piece));
  } catch (...) {
  }
}

void NdjsonProgress::dropped(const wire::sandbox_api::OutputDropped& dropped) noexcept {
  try {
    write_line(wire::sandbox_api::encode_output_dropped(dropped));
  } catch (...) {
  }
}

void NdjsonProgress::finish(const std::string& line) noexcept { write_line(line); }

void NdjsonProgress::write_line(const std::string& line) noexcept {
  if (broken_) return;
  try {
    out_ << line << '\n' << std::flush;
    if (!out_) broken_ = true;
  } catch (...) {
    // A client that went away learns nothing more; the call goes on to be recorded.
    broken_ = true;
  }
}

}  // namespace kg::api
