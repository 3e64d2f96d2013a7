// What the routes share for the life of one server: its options, the workdir confinement and
// the lock that runs one /execute at a time, the egress bridge, the command launcher and the
// prestarted command. Owned by SandboxServer; routes on any server thread
// read it, and only execute_mutex is ever locked.
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "command_launcher.hpp"
#include "egress_bridge.hpp"

#include "logger.hpp"
#include "path_confinement.hpp"
#include "prestarted_command.hpp"
#include "sandbox_server_options.hpp"

namespace kg::sandbox {

struct RouteContext {
  RouteContext(const SandboxServerOptions& server_options, log::Logger& server_logger)
      : options(server_options),
        confinement(server_options.workdir),
        logger(server_logger),
        egress_bridge(options.egress_proxy_socket.empty()
                          ? nullptr
                          : std::make_unique<EgressBridge>(options.egress_proxy_socket.string())),
        launcher(options.command_cgroup_fds.empty()
                     ? nullptr
                     : std::make_unique<CommandLauncher>(options.command_cgroup_fds)) {}

  const SandboxServerOptions options;
  const WorkdirConfinement confinement;
  log::Logger& logger;
  // Relays to the host's egress proxy for the server's whole life; null without one.
  const std::unique_ptr<EgressBridge> egress_bridge;
  // Starts every command inside the commands' cgroup; null without one. Used under
  // execute_mutex only.
  const std::unique_ptr<CommandLauncher> launcher;
  // The process started ahead of the next "prestart" call (prestarted_command.hpp), if any.
  // Used under execute_mutex only.
  std::unique_ptr<PrestartedCommand> prestarted;
  // How the last "prestart" call's process was born: after every command from then on the
  // server starts one like it for the next such call.
  std::optional<PrestartShape> prestart_shape;
  // A prestarted process an ordinary command killed (kill_now) and did not wait for; reaped
  // once that command has ended.
  std::unique_ptr<PrestartedCommand> dying;
  std::mutex execute_mutex;
};

}  // namespace kg::sandbox
