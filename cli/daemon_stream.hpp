// The daemon's streamed execute (docs/daemon-api.md, "Progress (streamed execute)") as its two
// clients in this program read it: `kode-gopher exec` (printing the program's output as it
// goes) and the MCP stdio server's DaemonSessionLink (progress notifications). One POST with
// `Accept: application/x-ndjson`; each line is handed to the matching handler as it arrives:
// {"progress"} to on_phase, {"output"} and {"output_dropped"} to on_output (read with the
// sandbox API's codec, the same shape), {"result"} kept and returned, {"error"} thrown.
// Runs on the caller's thread; the handlers run on it too.
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "http_client.hpp"
#include "program_output.hpp"
#include "session_backend.hpp"

namespace kg::cli {

struct StreamHandlers {
  mcp::PhaseHandler on_phase;    // may be empty
  mcp::OutputHandler on_output;  // may be empty
};

// Returns the ExecuteResult. Throws DaemonApiError (an error status, or an {"error"} line),
// kg::net::HttpTransportError, std::runtime_error (a line or body that is not JSON, or a stream
// without a result line); exceptions of the handlers propagate.
rapidjson::Document post_streamed(const std::string& socket_path, const std::string& target,
                                  std::string_view body, const kg::net::HttpRequestOptions& options,
                                  const StreamHandlers& handlers);

}  // namespace kg::cli
