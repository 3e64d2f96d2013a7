#include "cli_app.hpp"

#include <iostream>

#include <CLI/App.hpp>
#include <CLI/Config.hpp>
#include <CLI/Formatter.hpp>

#include "commands.hpp"
#include "error_chain.hpp"
#include "exit_codes.hpp"

namespace kg::cli {

int run_cli(int argc, char** argv) {
  GlobalOptions globals;
  CommandAction action;
  try {
    CLI::App app("kode-gopher: run Go programs in sandboxes through the kode-gopherd daemon",
                 "kode-gopher");
    app.footer(exit_code_help());
    app.add_option("--config", globals.config_path,
                   "Config file (default: $KODE_GOPHER_CONFIG, else "
                   "$XDG_CONFIG_HOME/kode-gopher/kode-gopher.ini)")
        ->type_name("FILE");
    app.add_option("--socket", globals.socket_path, "Daemon socket (overrides the config's)")
        ->type_name("PATH");
    app.require_subcommand(1);
    app.fallthrough();  // global options may follow the subcommand
    add_exec_command(app, globals, action);
    add_sessions_command(app, globals, action);
    add_stats_command(app, globals, action);
    add_plugins_command(app, globals, action);
    add_auth_command(app, globals, action);
    add_config_command(app, globals, action);
    DaemonCommandLine command_line = split_daemon_command_line(argc, argv);
    add_daemon_command(app, globals, action, std::move(command_line.passed_arguments));
    add_serve_command(app, globals, action);
    add_prompt_command(app, action);
    try {
      app.parse(command_line.parsed_argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);  // prints the help or the parse error
      return code == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::usage);
    }
    if (!action) return to_int(ExitCode::usage);
    return action();
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    std::cout.flush();
    std::cerr << "kode-gopher: " << kg::describe_error_chain(error) << std::endl;
    return to_int(exit_code_for_exception(error));
  }
}

}  // namespace kg::cli
