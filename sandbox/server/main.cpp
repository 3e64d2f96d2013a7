// kode-gopher-sandbox: the sandbox runtime API server that runs inside every sandbox (local
// bubblewrap sandbox on a Unix socket, Kubernetes pod on tcp:0.0.0.0:8888). Serves until
// SIGTERM or SIGINT. See docs/sandbox-api.md.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "command_line.hpp"
#include "error_chain.hpp"
#include "listen_address.hpp"
#include "sandbox_server.hpp"
#include "stderr_logger.hpp"

namespace {

// Commands get these as stdin/stdout/stderr redirection targets; a closed one would let a pipe
// land on fd 0-2 and be clobbered.
void open_missing_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", O_RDWR);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Not dumpable: the commands it runs share its uid, but without CAP_SYS_PTRACE they cannot
  // open its /proc/<pid>/mem, environ, fd/ or root, nor write its oom_score_adj.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  open_missing_standard_fds();
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server
  // Blocked before any thread starts, so every thread inherits the mask and sigwait() gets them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto parsed = kg::sandbox::parse_command_line(argc, argv);
  if (const int* exit_code = std::get_if<int>(&parsed)) return *exit_code;
  const auto& command_line = std::get<kg::sandbox::ServerCommandLine>(parsed);

  kg::StderrLogger logger(kg::log::LogLevel::info);
  std::string socket_file;  // removed on the way out
  int exit_code = 0;
  try {
    const auto address = kg::sandbox::parse_listen_address(command_line.listen);
    const Poco::Net::ServerSocket socket = kg::sandbox::listen_on(address);
    if (address.kind == kg::sandbox::ListenAddress::Kind::unix_socket) socket_file = address.path;
    kg::sandbox::SandboxServer server(socket, command_line.options, logger);
    server.start();
    logger.log(kg::log::LogLevel::info,
               "kode-gopher-sandbox " KG_SANDBOX_SERVER_VERSION " serving " +
                   command_line.options.workdir.string() + " on " +
                   (address.kind == kg::sandbox::ListenAddress::Kind::tcp
                        ? "tcp:" + socket.address().toString()
                        : command_line.listen));
    int received = 0;
    sigwait(&stop_signals, &received);
    logger.log(kg::log::LogLevel::info,
               std::string("Stopping on ") + (received == SIGTERM ? "SIGTERM" : "SIGINT"));
    server.stop();
  } catch (const std::exception& e) {
    logger.log(kg::log::LogLevel::error, "kode-gopher-sandbox: " + kg::describe_error_chain(e));
    exit_code = 1;
  }
  if (!socket_file.empty()) ::unlink(socket_file.c_str());
  return exit_code;
}
