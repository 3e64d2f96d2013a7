#include "sandbox_cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kg::sandbox {
namespace {

namespace fs = std::filesystem;

struct CgroupMount {
  std::string mount_point;
  std::string root;  // the mount's root inside the hierarchy ("/" unless in a cgroup namespace)
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  for (const auto& each : items) {
    if (each == item) return true;
  }
  return false;
}

// The mount of a v1 controller's hierarchy (fstype cgroup, super option <controller>) or of the
// v2 hierarchy (controller empty: fstype cgroup2), from /proc/self/mountinfo.
std::optional<CgroupMount> find_mount(const std::string& controller) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const auto before = split(line.substr(0, dash), ' ');
    const auto after = split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    const bool wanted = controller.empty()
                            ? after[0] == "cgroup2"
                            : after[0] == "cgroup" && contains(split(after[2], ','), controller);
    if (wanted) return CgroupMount{before[4], before[3]};
  }
  return std::nullopt;
}

// This process's path in a hierarchy, from /proc/self/cgroup ("4:memory:/a/b", "0::/a/b").
std::optional<std::string> own_cgroup_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const bool wanted = controller.empty() ? (line.substr(0, first) == "0" && controllers.empty())
                                           : contains(split(controllers, ','), controller);
    if (wanted) return line.substr(second + 1);
  }
  return std::nullopt;
}

// Where this process's cgroup of a hierarchy is in the file system, or nullopt.
std::optional<std::string> own_cgroup_dir(const std::string& controller) {
  const auto mount = find_mount(controller);
  const auto path = own_cgroup_path(controller);
  if (!mount || !path) return std::nullopt;
  std::string relative = *path;
  if (mount->root != "/" && relative.starts_with(mount->root)) {
    relative = relative.substr(mount->root.size());
  }
  return (fs::path(mount->mount_point) / fs::path(relative).relative_path()).lexically_normal().string();
}

// A small control file in a few read() calls (read before and after every command).
std::string read_text(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

// Writes a control file; throws with the file and the kernel's reason.
void write_control(const std::string& path, const std::string& value) {
  std::FILE* file = std::fopen(path.c_str(), "we");
  if (file == nullptr) {
    throw std::runtime_error("Cannot open " + path + ": " + std::strerror(errno));
  }
  const bool written = std::fputs(value.c_str(), file) >= 0;
  const int write_errno = errno;
  const bool closed = std::fclose(file) == 0;  // the kernel reports a refused value here
  if (!written || !closed) {
    throw std::runtime_error("Cannot write \"" + value + "\" to " + path + ": " +
                             std::strerror(written ? errno : write_errno));
  }
}

// "oom_kill N" in memory.oom_control (v1) or memory.events (v2).
std::uint64_t counter_in(const std::string& path, const std::string& name) {
  std::istringstream in(read_text(path));
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    if (key == name) return value;
  }
  return 0;
}

std::vector<pid_t> processes_in(const std::string& dir) {
  std::vector<pid_t> pids;
  std::istringstream in(read_text(dir + "/cgroup.procs"));
  pid_t pid = 0;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

// Kills everything inside and removes the folder, retrying while the dying processes leave.
void remove_cgroup_dir(const std::string& dir) noexcept {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  for (const auto& child : fs::directory_iterator(dir, ec)) {
    if (child.is_directory(ec)) remove_cgroup_dir(child.path().string());
  }
  for (int attempt = 0; attempt < 200; ++attempt) {
    for (const pid_t pid : processes_in(dir)) ::kill(pid, SIGKILL);
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Folders named kode-gopher-<pid> whose daemon is gone (it was killed): removed.
void remove_stale_daemon_dirs(const std::string& parent, plugin::Logger& logger) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("kode-gopher-") || !entry.is_directory(ec)) continue;
    const pid_t pid = static_cast<pid_t>(std::strtol(name.c_str() + 12, nullptr, 10));
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    remove_cgroup_dir(entry.path().string());
    logger.log(plugin::LogLevel::info, "Removed the cgroup of a daemon that is gone: " +
                                           entry.path().string());
  }
}

std::string daemon_dir_name() { return "kode-gopher-" + std::to_string(::getpid()); }

}  // namespace

SandboxCgroup::SandboxCgroup(CgroupVersion version, std::vector<std::string> dirs,
                             plugin::Logger& logger)
    : version_(version), dirs_(std::move(dirs)), logger_(logger) {
  // v2 lets limits bind children only through subtree_control, and then only leaves hold
  // processes: hence `server` beside `commands`, in v1 too, so both look alike.
  if (version_ == CgroupVersion::v2) write_control(dirs_.front() + "/cgroup.subtree_control", "+memory +pids");
  for (const auto& dir : dirs_) {
    for (const char* name : {"server", "commands"}) fs::create_directory(dir + "/" + name);
  }
}

SandboxCgroup::~SandboxCgroup() {
  for (const auto& dir : dirs_) remove_cgroup_dir(dir);
}

std::vector<std::string> SandboxCgroup::subdirs(const char* name) const {
  std::vector<std::string> found;
  for (const auto& dir : dirs_) found.push_back(dir + "/" + name);
  return found;
}

std::vector<std::string> SandboxCgroup::procs_files() const {
  std::vector<std::string> files;
  for (const auto& dir : subdirs("server")) files.push_back(dir + "/cgroup.procs");
  return files;
}

std::vector<std::string> SandboxCgroup::command_procs_files() const {
  std::vector<std::string> files;
  for (const auto& dir : subdirs("commands")) files.push_back(dir + "/cgroup.procs");
  return files;
}

void SandboxCgroup::set_sandbox_limits(std::uint64_t memory_bytes, std::uint32_t pids) {
  write_limits(dirs_, memory_bytes + kServerMemoryBytes, pids + kLauncherTasks + kServerTasks);
}

void SandboxCgroup::set_limits(std::uint64_t memory_bytes, std::uint32_t pids) {
  const std::pair wanted{memory_bytes, pids};
  if (applied_ == wanted) return;
  applied_.reset();  // unknown until every write below succeeded
  // One task more than the command's own: the server's command launcher lives in `commands`
  // (sandbox/server/command_launcher.hpp), and must not take one of the command's.
  write_limits(subdirs("commands"), memory_bytes, pids + kLauncherTasks);
  applied_ = wanted;
}

void SandboxCgroup::write_limits(const std::vector<std::string>& dirs, std::uint64_t memory_bytes,
                                 std::uint32_t pids) {
  const std::string& memory_dir = dirs.front();
  const std::string memory = std::to_string(memory_bytes);
  if (version_ == CgroupVersion::v2) {
    write_control(memory_dir + "/memory.max", memory);
    if (fs::exists(memory_dir + "/memory.swap.max")) write_control(memory_dir + "/memory.swap.max", "0");
    write_control(memory_dir + "/pids.max", std::to_string(pids));
    return;
  }
  // v1: memory+swap may never be below memory alone, so the order depends on the direction.
  const std::string memsw = memory_dir + "/memory.memsw.limit_in_bytes";
  const bool has_memsw = fs::exists(memsw);
  try {
    write_control(memory_dir + "/memory.limit_in_bytes", memory);
    if (has_memsw) write_control(memsw, memory);
  } catch (const std::runtime_error&) {
    if (!has_memsw) throw;
    write_control(memsw, memory);
    write_control(memory_dir + "/memory.limit_in_bytes", memory);
  }
  if (dirs.size() > 1) write_control(dirs[1] + "/pids.max", std::to_string(pids));
}

std::uint64_t SandboxCgroup::oom_kills() const {
  const std::string memory_dir = dirs_.front() + "/commands";
  return version_ == CgroupVersion::v2 ? counter_in(memory_dir + "/memory.events", "oom_kill")
                                       : counter_in(memory_dir + "/memory.oom_control", "oom_kill");
}

std::uint64_t SandboxCgroup::new_oom_kills() {
  const std::uint64_t now = oom_kills();
  const std::uint64_t fresh = now > oom_kills_seen_ ? now - oom_kills_seen_ : 0;
  oom_kills_seen_ = now;
  return fresh;
}

void SandboxCgroup::kill_all() noexcept {
  for (const auto& dir : dirs_) {
    for (const char* name : {"commands", "server"}) {
      for (const pid_t pid : processes_in(dir + "/" + name)) ::kill(pid, SIGKILL);
    }
  }
}

CgroupHierarchy::CgroupHierarchy(CgroupVersion version, std::vector<std::string> roots,
                                 std::string description, plugin::Logger& logger)
    : version_(version),
      roots_(std::move(roots)),
      description_(std::move(description)),
      logger_(logger) {}

CgroupHierarchy::~CgroupHierarchy() {
  for (const auto& root : roots_) remove_cgroup_dir(root);
}

std::unique_ptr<CgroupHierarchy> CgroupHierarchy::detect(plugin::Logger& logger) {
  std::string why_not;
  // cgroup v2 with the memory and pids controllers delegated to this daemon's cgroup.
  if (const auto own = own_cgroup_dir("")) {
    const auto offered = split(read_text(*own + "/cgroup.controllers"), ' ');
    const auto has = [&](const char* name) {
      for (auto item : offered) {
        if (!item.empty() && item.back() == '\n') item.pop_back();
        if (item == name) return true;
      }
      return false;
    };
    if (has("memory") && has("pids")) {
      const std::string root = *own + "/" + daemon_dir_name();
      try {
        remove_stale_daemon_dirs(*own, logger);
        write_control(*own + "/cgroup.subtree_control", "+memory +pids");
        fs::create_directories(root);
        write_control(root + "/cgroup.subtree_control", "+memory +pids");
        return std::unique_ptr<CgroupHierarchy>(new CgroupHierarchy(
            CgroupVersion::v2, {root}, "cgroup v2 memory+pids under " + root, logger));
      } catch (const std::exception& e) {
        remove_cgroup_dir(root);
        why_not = std::string("cgroup v2: ") + e.what() +
                  " (run the daemon in a delegated cgroup, e.g. systemd Delegate=yes, with no "
                  "other process in it)";
      }
    } else {
      why_not = "cgroup v2 at " + *own + " offers no memory and pids controllers";
    }
  }
  // cgroup v1: the memory hierarchy (required) and the pids one (when mounted).
  if (const auto memory = own_cgroup_dir("memory")) {
    std::vector<std::string> roots;
    try {
      remove_stale_daemon_dirs(*memory, logger);
      roots.push_back(*memory + "/" + daemon_dir_name());
      fs::create_directories(roots.back());
      if (const auto pids = own_cgroup_dir("pids")) {
        remove_stale_daemon_dirs(*pids, logger);
        roots.push_back(*pids + "/" + daemon_dir_name());
        fs::create_directories(roots.back());
      }
      std::string description = "cgroup v1 memory" + std::string(roots.size() > 1 ? "+pids" : "") +
                                " under " + roots.front();
      return std::unique_ptr<CgroupHierarchy>(
          new CgroupHierarchy(CgroupVersion::v1, roots, std::move(description), logger));
    } catch (const std::exception& e) {
      for (const auto& root : roots) remove_cgroup_dir(root);
      why_not += std::string(why_not.empty() ? "" : "; ") + "cgroup v1: " + e.what();
    }
  }
  if (why_not.empty()) why_not = "no cgroup hierarchy is mounted";
  return std::unique_ptr<CgroupHierarchy>(new CgroupHierarchy(
      CgroupVersion::none, {},
      "memory and process limits are off: " + why_not + " (run the daemon as root, or in a "
      "delegated cgroup v2 subtree)",
      logger));
}

std::unique_ptr<SandboxCgroup> CgroupHierarchy::create(const std::string& sandbox_id) {
  if (!available()) return nullptr;
  std::vector<std::string> dirs;
  try {
    for (const auto& root : roots_) {
      dirs.push_back(root + "/" + sandbox_id);
      fs::create_directory(dirs.back());
    }
    return std::make_unique<SandboxCgroup>(version_, dirs, logger_);
  } catch (const std::exception& e) {
    for (const auto& dir : dirs) remove_cgroup_dir(dir);
    throw std::runtime_error("Cannot make the cgroup of sandbox " + sandbox_id + ": " + e.what());
  }
}

}  // namespace kg::sandbox
