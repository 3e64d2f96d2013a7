#include "stray_process_reaper.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include "command_launcher.hpp"

namespace kg::sandbox {
namespace {

std::optional<pid_t> parse_pid(const std::string& text) {
  pid_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

// The parent pid from /proc/<pid>/stat; 0 when unknown. The command name (field 2) may hold
// spaces and parentheses, so fields are counted from the last ')'.
pid_t parent_of(pid_t pid, const std::filesystem::path& proc_root) {
  std::ifstream stat_file(proc_root / std::to_string(pid) / "stat");
  std::string line;
  if (!std::getline(stat_file, line)) return 0;
  const auto close_paren = line.rfind(')');
  if (close_paren == std::string::npos) return 0;
  std::istringstream fields(line.substr(close_paren + 1));
  char state = 0;
  pid_t parent = 0;
  fields >> state >> parent;
  return fields ? parent : 0;
}

}  // namespace

std::vector<pid_t> find_stray_processes(pid_t self, const std::filesystem::path& proc_root,
                                        const std::vector<pid_t>& also_spared) {
  std::vector<pid_t> spared{1, self};
  spared.insert(spared.end(), also_spared.begin(), also_spared.end());
  for (pid_t pid = parent_of(self, proc_root); pid > 1; pid = parent_of(pid, proc_root)) {
    if (std::find(spared.begin(), spared.end(), pid) != spared.end()) break;
    spared.push_back(pid);
  }
  std::vector<pid_t> strays;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, error)) {
    const auto pid = parse_pid(entry.path().filename().string());
    if (pid && std::find(spared.begin(), spared.end(), *pid) == spared.end()) {
      strays.push_back(*pid);
    }
  }
  std::sort(strays.begin(), strays.end());
  return strays;
}

namespace {

// kill(-1, SIGKILL) from the launcher when it is there to send it, else from the server (which
// ends the launcher too: it is discarded). The launcher's pid while it lives, for sparing.
std::optional<pid_t> kill_everything_once(CommandLauncher* launcher) {
  if (launcher != nullptr) {
    if (launcher->kill_everything_else()) return launcher->pid();
    launcher->discard();
  }
  ::kill(-1, SIGKILL);
  return std::nullopt;
}

// pid 1 of a pid namespace: kill(-1) reaches every other process in it at once, and every
// orphan ends up our child, so "no child left" (or only the launcher) means "no process left".
std::size_t kill_everything_as_init(CommandLauncher* launcher, std::optional<pid_t> dying) {
  std::size_t ended = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<pid_t> spared;
    if (const std::optional<pid_t> live = kill_everything_once(launcher)) spared.push_back(*live);
    if (dying) spared.push_back(*dying);
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) ++ended;
    if (pid < 0 && errno == ECHILD) return ended;  // nothing is left
    if (!spared.empty() && find_stray_processes(1, "/proc", spared).empty()) return ended;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ended;
}

}  // namespace

std::size_t kill_stray_processes(CommandLauncher* launcher, std::optional<pid_t> dying) {
  if (::getpid() == 1) return kill_everything_as_init(launcher, dying);
  std::vector<pid_t> spared;
  if (const auto launcher_pid = launcher != nullptr ? launcher->pid() : std::nullopt) {
    spared.push_back(*launcher_pid);
  }
  if (dying) spared.push_back(*dying);
  std::size_t signalled = 0;
  // A process forked between the scan and the kills is caught by the next pass.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto strays = find_stray_processes(::getpid(), "/proc", spared);
    if (strays.empty()) break;
    for (const pid_t pid : strays) {
      if (::kill(pid, SIGKILL) == 0) ++signalled;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return signalled;
}

}  // namespace kg::sandbox
