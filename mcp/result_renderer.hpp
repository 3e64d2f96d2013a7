// The text rendering of one call's result (docs/contracts.md §3), shared by `kode-gopher exec` and
// the MCP server's text block. A pure function; any thread.
//
//   phase=run mode=verbatim runtime=compiled-go exit=1 (812ms, build 700ms) status=runtime_error
//   warning: <each warning>
//   ── diagnostics ──
//   main.go:3:2: undefined: x
//   ── stdout ──
//   ── stderr ──
//   ── result ──
//   { 2-space JSON }
//   ── api calls: 3 (1 refused), 2.1 KiB ──
//   storage.objects.list b/my-bucket 200 12ms 2048B
//   storage.objects.insert b/my-bucket/o/x 403 0ms 0B refused: read_only
//
// `status=` is shown only when it is not ok, `signal=N` only when present, then ` cache hit` and
// ` tidied` when true. Each block appears only when it has content and always ends with a newline.
#pragma once

#include <cstddef>
#include <string>

#include "daemon_api/execute_result.hpp"

namespace kg::cli {

using wire::daemon_api::ExecuteResult;

// `execute_result` is the daemon's ExecuteResult (docs/daemon-api.md, read with its codec).
// Strings it lacks are shown as "?" on the first line, and parts it lacks are left out below
// it. Of api_calls, at most
// `max_api_call_lines` requests are shown (the MCP text keeps it short for the agent), then
// how many more there were.
std::string render_execute_result(const ExecuteResult& execute_result,
                                  std::size_t max_api_call_lines = 50);

}  // namespace kg::cli
