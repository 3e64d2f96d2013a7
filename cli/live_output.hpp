// `kode-gopher exec`'s live output (README, "exec"): the program's stdout and stderr pieces,
// as the daemon streams them, written at once to the CLI's own stdout and stderr. Output the
// stream could not carry (cut lines, pieces dropped for a slow reader or over the stream's
// limit) is noted on stderr; complete() then says the result's stdout and stderr must still
// be printed at the end, since they hold what was not shown. Main thread.
#pragma once

#include <ostream>

#include "daemon_api/execute_result.hpp"

#include "program_output.hpp"

namespace kg::cli {

class LiveOutput {
 public:
  LiveOutput(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}
  void show(const mcp::ProgramOutput& output);
  // True when everything printed was shown as it came (nothing cut or dropped).
  bool complete() const noexcept { return complete_; }

 private:
  std::ostream& out_;
  std::ostream& err_;
  bool complete_ = true;
};

// The result without its stdout and stderr (shown already as they were printed).
void drop_shown_output(wire::daemon_api::ExecuteResult& result);

}  // namespace kg::cli
