#include "stdio_loop.hpp"

#include "json_rpc.hpp"

namespace kg::mcp {

void StdioLoop::serve(LineReader& reader) {
  while (const std::optional<InputLine> line = reader.next()) handle_line(*line);
  logger_.log(log::LogLevel::info, "Input ended: stopping");
  server_.shutdown();
}

void StdioLoop::handle_line(const InputLine& line) {
  if (line.dropped_bytes > 0) {
    logger_.log(log::LogLevel::warn,
                "Dropped a message of " + std::to_string(line.dropped_bytes) + " bytes");
    writer_->write_line(error_line(
        "null", RpcErrorCode::invalid_request,
        "Invalid request: the message is " + std::to_string(line.dropped_bytes) +
            " bytes, more than the " + std::to_string(kMaxMessageBytes >> 20) +
            " MiB this server reads in one line; send large programs as several files, or run "
            "them with `kode-gopher exec`"));
    return;
  }
  if (line.text.find_first_not_of(" \t") == std::string::npos) return;  // blank line
  std::shared_ptr<IncomingMessage> message;
  try {
    message = std::make_shared<IncomingMessage>(parse_message(line.text));
  } catch (const RpcError& e) {
    logger_.log(log::LogLevel::warn, e.what());
    writer_->write_line(error_line(e.id_json(), e.code(), e.what(), e.data_json()));
    return;
  }
  server_.handle(std::move(message), writer_);
}

}  // namespace kg::mcp
