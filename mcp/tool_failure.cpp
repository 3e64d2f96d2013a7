#include "tool_failure.hpp"

#include <string>

#include "error_chain.hpp"
#include "http_client.hpp"
#include "session_backend.hpp"
#include "tool_definition.hpp"

namespace kg::mcp {

ToolResult tool_failure(std::string_view tool, std::exception_ptr error) {
  const std::string prefix = std::string(tool) + ": ";
  try {
    std::rethrow_exception(error);
  } catch (const ToolArgumentError& e) {
    return ToolResult::error(e.what());
  } catch (const BackendRefusedError& e) {
    if (e.code().empty()) return ToolResult::error(prefix + e.what());
    return ToolResult::error(prefix + "the daemon refused the call (" + e.code() + "): " +
                             e.what());
  } catch (const BackendUnavailableError&) {
    return ToolResult::error(prefix + "the kode-gopher daemon is unavailable: " +
                             kg::describe_error_chain(error));
  } catch (const kg::net::HttpTransportError&) {
    return ToolResult::error(prefix + "lost the connection to the kode-gopher daemon: " +
                             kg::describe_error_chain(error) +
                             " (see the daemon's log; the next call reconnects)");
  } catch (...) {
    return ToolResult::error(prefix + kg::describe_error_chain(error));
  }
}

}  // namespace kg::mcp
