#include "sandbox_host_user.hpp"

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {

std::optional<std::string> first_path_denied_to(uid_t uid, gid_t gid,
                                                const std::vector<PathAccess>& checks) {
  if (checks.size() > 250) throw std::runtime_error("Too many paths to check at once");
  std::vector<const char*> c_paths;
  for (const auto& check : checks) c_paths.push_back(check.path.c_str());
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("Cannot fork to check paths: ") + std::strerror(errno));
  if (pid == 0) {
    // Exit status: 0 all readable, 1 + index of the first that is not, 255 cannot switch user.
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) ::_exit(255);
    for (std::size_t i = 0; i < c_paths.size(); ++i) {
      if (::access(c_paths[i], checks[i].mode) != 0) ::_exit(static_cast<int>(1 + i));
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) {
    return "(cannot switch to uid " + std::to_string(uid) + ")";
  }
  const int code = WEXITSTATUS(status);
  if (code == 0) return std::nullopt;
  return checks.at(static_cast<std::size_t>(code - 1)).path;
}

}  // namespace kg::sandbox
