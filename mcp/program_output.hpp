// The program's output as a call streams it to an MCP tool (docs/mcp.md, "Output while it
// runs"): a piece of stdout or stderr as printed, or a report that some was not streamed. The
// session backends (cli/mcp's DaemonSessionLink, daemon/team/http's InProcessSessionBackend)
// turn the daemon API's "output" and "output_dropped" lines into these; CallProgress turns them
// into progress notifications. Plain data; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace kg::mcp {

struct ProgramOutput {
  // A piece of one stream (at most one line, as printed), or dropped_bytes > 0: that many bytes
  // were printed and not streamed, for `reason` ("slow_reader" or "limit").
  bool is_stderr = false;
  std::string text;
  bool cut = false;  // the rest of this line was not streamed
  std::uint64_t dropped_bytes = 0;
  std::string reason;
};

using OutputHandler = std::function<void(const ProgramOutput& output)>;

}  // namespace kg::mcp
