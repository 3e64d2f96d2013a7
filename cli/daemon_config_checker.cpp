#include "daemon_config_checker.hpp"

#include "daemon_binary_run.hpp"

namespace kg::cli {

int run_daemon_config_check(const std::string& daemon_binary, const std::string& file,
                            std::ostream& out) {
  const DaemonBinaryOutput checked =
      run_daemon_binary(daemon_binary, {"--check-config", file}, /*merge_stderr=*/true);
  out << checked.output;
  return checked.exit_code;
}

}  // namespace kg::cli
