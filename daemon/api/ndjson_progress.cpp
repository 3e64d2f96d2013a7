#include "ndjson_progress.hpp"

#include "json_body.hpp"

namespace kg::api {

void NdjsonProgress::phase_started(plugin::Phase phase, std::string_view detail) noexcept {
  try {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("progress");
    w.StartObject();
    w.Key("phase");
    write_string(w, plugin::to_string(phase));
    w.Key("detail");
    write_string(w, detail);
    w.EndObject();
    w.EndObject();
    write_line(buffer.GetString());
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
