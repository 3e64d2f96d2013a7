// A progress line of a streamed execute (docs/daemon-api.md, "Progress"):
// {"progress": {"phase", "detail"}}, one NDJSON line as a phase of the call starts. Written by
// the daemon's API (daemon/api/ndjson_progress.cpp), read by the CLI's and the MCP server's
// stream reader (cli/daemon_stream.cpp), which show it or pass it on as MCP progress.
// Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace kg::wire::daemon_api {

struct ProgressLine {
  std::string phase;   // setup | build | run
  std::string detail;  // what happens in it, for people ("compile and link")
  bool operator==(const ProgressLine&) const = default;
};

// One line without its newline; bytes that are not UTF-8 become U+FFFD.
std::string encode_progress_line(const ProgressLine& line);

// Reads a line parsed within json::kDaemonAnswerLimits that has a "progress" member; absent
// members stay empty. Throws MalformedMessage naming a member out of shape.
ProgressLine decode_progress_line(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
