// Who hears a call's program output while it runs: the daemon API's NDJSON stream
// (docs/daemon-api.md, "Progress"), and through it the CLI and the MCP shim, or the team
// transport's MCP progress. The sandbox client hands it each piece of a command that asked to
// stream (plugin::CommandSpec::stream_output) as the sandbox sends it; nothing is kept, so a
// flood costs the daemon no memory (the sandbox bounds what it sends, docs/sandbox-api.md).
//
// Called on the call's thread, in order; implementations never throw (a reader that went away
// loses the rest, the call goes on).
#pragma once

#include "sandbox_api/execute_stream.hpp"

namespace kg::sandbox {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual void printed(const wire::sandbox_api::OutputPiece& piece) noexcept = 0;
  virtual void dropped(const wire::sandbox_api::OutputDropped& dropped) noexcept = 0;
};

}  // namespace kg::sandbox
