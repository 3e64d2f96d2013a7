// Streams a call's progress to the client as NDJSON lines (docs/daemon-api.md, "Progress"):
// {"progress": {"phase", "detail"}} per phase change, and the program's output as the sandbox
// streams it ({"output": ...}, {"output_dropped": ...}, written by the sandbox API's codec, the
// same shape), each flushed at once. Used by the request handler's thread only, the same thread
// that runs the call. A client that stops reading holds that thread in a write until the
// socket's timeout; the program is not held (the sandbox drops what its reader cannot take).
#pragma once

#include <ostream>
#include <string>

#include "output_sink.hpp"
#include "runtime_plugin.hpp"

namespace kg::api {

class NdjsonProgress final : public plugin::ProgressSink, public sandbox::OutputSink {
 public:
  explicit NdjsonProgress(std::ostream& out) : out_(out) {}
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override;
  void printed(const wire::sandbox_api::OutputPiece& piece) noexcept override;
  void dropped(const wire::sandbox_api::OutputDropped& dropped) noexcept override;
  // Writes one final line (already JSON) and flushes. Never throws.
  void finish(const std::string& line) noexcept;

 private:
  void write_line(const std::string& line) noexcept;

  std::ostream& out_;
  bool broken_ = false;  // a write failed: the client is gone, nothing more is written
};

}  // namespace kg::api
