// `kode-gopher serve`'s reading loop: newline-delimited JSON-RPC on stdin, every answer and
// notification on stdout through one ProtocolWriter. Runs on the main thread; when stdin ends
// (or a termination signal arrives, see LineReader) it shuts the server down: the call in
// flight cancelled, the daemon session closed.
#pragma once

#include <cstddef>
#include <memory>

#include "logger.hpp"
#include "line_reader.hpp"
#include "mcp_server.hpp"
#include "protocol_writer.hpp"

namespace kg::mcp {

// Lines longer than this are dropped with an error answer (programs are far smaller; the
// daemon's own request limit, 16 MiB by default, comes first and answers more precisely).
inline constexpr std::size_t kMaxMessageBytes = 32u << 20;

class StdioLoop {
 public:
  StdioLoop(McpServer& server, std::shared_ptr<ProtocolWriter> writer, log::Logger& logger)
      : server_(server), writer_(std::move(writer)), logger_(logger) {}

  // Reads and answers messages until the end of input, then shuts the server down.
  void serve(LineReader& reader);

  // One line of input (exposed for tests that drive the server without a process).
  void handle_line(const InputLine& line);

 private:
  McpServer& server_;
  std::shared_ptr<ProtocolWriter> writer_;
  log::Logger& logger_;
};

}  // namespace kg::mcp
