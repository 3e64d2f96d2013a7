#include "cli_app.hpp"

#include <iostream>

#include <CLI/App.hpp>
#include <CLI/Config.hpp>
#include <CLI/Formatter.hpp>

#include "commands.hpp"
#include "error_chain.hpp"
#include "exit_codes.hpp"
#include "malformed_message.hpp"

namespace kg::cli {
namespace {

// True when the error, or one it wraps, is a daemon answer this CLI's codecs could not read
// (lib/wire): most often a daemon of another version still running on the socket.
bool is_unreadable_answer(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const kg::wire::MalformedMessage&) {
    return true;
  } catch (const std::exception& e) {
    try {
      std::rethrow_if_nested(e);
    } catch (...) {
      return is_unreadable_answer(std::current_exception());
    }
  } catch (...) {
  }
  return false;
}

}  // namespace

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
    add_api_calls_command(app, globals, action);
    add_stats_command(app, globals, action);
    add_plugins_command(app, globals, action);
    add_auth_command(app, globals, action);
    add_docs_command(app, globals, action);
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
    if (is_unreadable_answer(error)) {
      std::cerr << "kode-gopher: the daemon's answer is not one this kode-gopher can read; a "
                   "daemon of another version may be running on this socket: stop it "
                   "(systemctl --user stop kode-gopher.service, or end its kode-gopherd process) "
                   "and run the command again" << std::endl;
    }
    return to_int(exit_code_for_exception(error));
  }
}

}  // namespace kg::cli
