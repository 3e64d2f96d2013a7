// `kode-gopher serve`: the MCP stdio server. It is a later issue; until then the subcommand
// exists so that scripts and MCP client set-ups get a clear answer instead of a usage error.
#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace kg::cli {

void add_serve_command(CLI::App& app, const GlobalOptions& /*globals*/, CommandAction& action) {
  CLI::App* serve = app.add_subcommand("serve", "Serve MCP on stdio (not available yet)");
  serve->callback([&action] {
    action = [] {
      std::cerr << "kode-gopher serve (the MCP server) is not available in this build yet\n";
      return to_int(ExitCode::unavailable);
    };
  });
}

}  // namespace kg::cli
