// Streams a call's progress to the client as NDJSON lines (docs/daemon-api.md, "Progress"):
// {"progress": {"phase", "detail"}} per phase change, flushed at once. Used by the request
// handler's thread only, the same thread that runs the call.
#pragma once

#include <ostream>
#include <string>

#include "runtime_plugin.hpp"

namespace kg::api {

class NdjsonProgress final : public plugin::ProgressSink {
 public:
  explicit NdjsonProgress(std::ostream& out) : out_(out) {}
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override;
  // Writes one final line (already JSON) and flushes. Never throws.
  void finish(const std::string& line) noexcept;

 private:
  std::ostream& out_;
};

}  // namespace kg::api
