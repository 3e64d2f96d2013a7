// The `kode-gopher` command line: global options, the subcommands (commands.hpp), and the one
// place where a failure becomes a message on stderr and an exit code (exit_codes.hpp).
// Called once from main on the main thread.
#pragma once

namespace kg::cli {

// Parses argv, runs the chosen subcommand, returns the process exit code. Never throws.
int run_cli(int argc, char** argv);

}  // namespace kg::cli
