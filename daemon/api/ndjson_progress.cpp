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
    out_ << buffer.GetString() << '\n' << std::flush;
  } catch (...) {
    // A client that went away learns nothing more; the call goes on to be recorded.
  }
}

void NdjsonProgress::finish(const std::string& line) noexcept {
  try {
    out_ << line << '\n' << std::flush;
  } catch (...) {
  }
}

}  // namespace kg::api
