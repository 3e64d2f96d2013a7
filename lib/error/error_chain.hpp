// Renders an exception and everything nested in it (std::throw_with_nested) as one line,
// outermost first: "Failed to open session: Failed to start sandbox: bwrap: ...".
// Used at each boundary that shows an error to a person (daemon API, CLI, MCP).
#pragma once

#include <exception>
#include <string>

namespace kg {

std::string describe_error_chain(const std::exception& error);
std::string describe_error_chain(std::exception_ptr error);

}  // namespace kg
