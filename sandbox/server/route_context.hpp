// What the routes share for the life of one server: its options, the workdir confinement and
// the lock that runs one /execute at a time. Owned by SandboxServer; routes on any server thread
// read it, and only execute_mutex is ever locked.
#pragma once

#include <mutex>

#include "host_services.hpp"
#include "path_confinement.hpp"
#include "sandbox_server_options.hpp"

namespace kg::sandbox {

struct RouteContext {
  RouteContext(const SandboxServerOptions& server_options, plugin::Logger& server_logger)
      : options(server_options), confinement(server_options.workdir), logger(server_logger) {}

  const SandboxServerOptions options;
  const WorkdirConfinement confinement;
  plugin::Logger& logger;
  std::mutex execute_mutex;
};

}  // namespace kg::sandbox
