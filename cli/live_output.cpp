#include "live_output.hpp"

#include <string>

namespace kg::cli {

void LiveOutput::show(const mcp::ProgramOutput& output) {
  if (output.dropped_bytes > 0) {
    complete_ = false;
    out_.flush();
    err_ << "kode-gopher: " << output.dropped_bytes << " bytes of output not shown live ("
         << (output.reason == "limit" ? "over the live output limit"
                                      : "the terminal fell behind")
         << "); the result below keeps its head and tail\n";
    err_.flush();
    return;
  }
  std::ostream& stream = output.is_stderr ? err_ : out_;
  stream << output.text;
  if (output.cut) {
    complete_ = false;
    stream << " ... [line cut; the result below keeps it]\n";
  }
  stream.flush();
}

void drop_shown_output(wire::daemon_api::ExecuteResult& result) {
  result.stdout_text.clear();
  result.stderr_text.clear();
}

}  // namespace kg::cli
