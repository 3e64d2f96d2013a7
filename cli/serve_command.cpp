// `kode-gopher serve`: the MCP server on stdio (cli/mcp/, docs/mcp.md). It keeps stdout for
// protocol messages only: the real stdout is moved to a private descriptor and fd 1 becomes a
// copy of stderr, so nothing else this process (or a daemon it starts) prints can corrupt the
// stream. Main thread; the server runs tool calls on a worker thread of its own.
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "commands.hpp"
#include "daemon_session_link.hpp"
#include "exit_codes.hpp"
#include "line_reader.hpp"
#include "mcp_server.hpp"
#include "protocol_writer.hpp"
#include "stdio_loop.hpp"
#include "stderr_logger.hpp"
#include "system_prompt.hpp"
#include "tool_catalog.hpp"

namespace kg::cli {
namespace {

// The descriptor protocol messages go to. Throws std::runtime_error when the descriptors cannot
// be rearranged.
int take_stdout_for_protocol() {
  const int protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    throw std::runtime_error("kode-gopher serve cannot set up its standard output for MCP");
  }
  return protocol_fd;
}

// SIGTERM and SIGINT, blocked in every thread (set before any starts) and delivered through
// the returned signalfd instead, so a client that stops the server with a signal gets the same
// orderly end as one that closes stdin: the call in flight cancelled, the daemon session closed.
// (kode-gopherd, if this process starts it, blocks the same two signals itself.)
int take_termination_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  if (::pthread_sigmask(SIG_BLOCK, &signals, nullptr) != 0) return -1;
  return ::signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
}

int run_serve(const GlobalOptions& globals, const std::string& log_level) {
  kg::StderrLogger logger(kg::parse_log_level(log_level));
  // A client that goes away must not kill the server mid-write; writes then fail with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  const int signal_fd = take_termination_signals();
  std::cout.flush();
  auto writer = std::make_shared<kg::mcp::ProtocolWriter>(take_stdout_for_protocol());
  kg::mcp::DaemonSessionLink daemon(globals, logger);
  kg::mcp::ToolCatalog tools(daemon);
  kg::mcp::McpServer server(tools, daemon, logger, kg::mcp::ServerIdentity{});
  kg::mcp::StdioLoop loop(server, writer, logger);
  kg::mcp::LineReader reader(STDIN_FILENO, kg::mcp::kMaxMessageBytes, signal_fd);
  logger.log(log::LogLevel::info, "kode-gopher serve: MCP on stdio (protocol " +
                                         std::string(kg::mcp::kModernVersion) + " and " +
                                         std::string(kg::mcp::kLatestLegacyVersion) +
                                         ", 2025-06-18, 2025-03-26)");
  loop.serve(reader);
  signalfd_siginfo received{};
  if (signal_fd >= 0 && ::read(signal_fd, &received, sizeof received) == sizeof received) {
    logger.log(log::LogLevel::info,
               std::string("Stopped on ") + ::strsignal(static_cast<int>(received.ssi_signo)));
  }
  return to_int(ExitCode::ok);
}

}  // namespace

void add_serve_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto log_level = std::make_shared<std::string>("info");
  auto http_address = std::make_shared<std::string>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Serve MCP on stdio for an agent (Claude Code, Gemini CLI, ...): tools "
               "execute_go_code, gcp_auth_status, lookup_package_docs, and the prompt " +
                   std::string(kg::mcp::kSystemPromptName) + ". See docs/mcp.md");
  CLI::Option* log_level_option =
      serve->add_option("--log-level", *log_level,
                        "Log level on stderr: error, warn, info, debug (with --http: overrides "
                        "[daemon] log_level)")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}))
      ->type_name("LEVEL");
  serve->add_option("--http", *http_address,
                    "Serve MCP over streamable HTTP on host:port instead of stdio: runs "
                    "kode-gopherd in the foreground with [http] listen = ADDR (sign-in per "
                    "[http] auth and [oauth]; docs/team-mode.md)")
      ->type_name("ADDR");
  serve->callback([&globals, &action, log_level, http_address, log_level_option] {
    if (!http_address->empty()) {
      std::vector<std::string> daemon_arguments = {"--http", *http_address};
      // Only when given: otherwise the daemon's [daemon] log_level decides.
      if (log_level_option->count() > 0) {
        daemon_arguments.insert(daemon_arguments.end(), {"--log-level", *log_level});
      }
      action = [&globals, daemon_arguments] { return exec_daemon(globals, daemon_arguments); };
      return;
    }
    action = [&globals, log_level] { return run_serve(globals, *log_level); };
  });
}

}  // namespace kg::cli
