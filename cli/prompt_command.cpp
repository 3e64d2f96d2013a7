// `kode-gopher prompt`: prints the system prompt for an agent (mcp/system_prompt.hpp), the
// same text `kode-gopher serve` returns for prompts/get, so that it can be pasted into a client
// that does not use MCP prompts (a system prompt setting, an agent's instructions file). Needs
// no daemon.
#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "system_prompt.hpp"

namespace kg::cli {

void add_prompt_command(CLI::App& app, CommandAction& action) {
  CLI::App* prompt = app.add_subcommand(
      "prompt", "Print the system prompt for an agent that uses kode-gopher's MCP tools (the MCP "
                "prompt " + std::string(kg::mcp::kSystemPromptName) + ")");
  prompt->callback([&action] {
    action = [] {
      std::cout << kg::mcp::system_prompt_text() << std::flush;
      return to_int(std::cout ? ExitCode::ok : ExitCode::internal);
    };
  });
}

}  // namespace kg::cli
