// Starts child processes from one long-lived thread.
//
// Why a thread of its own: bubblewrap's --die-with-parent ties a sandbox's life to the *thread*
// that forked it (PR_SET_PDEATHSIG fires when that thread exits), and the HTTP server's worker
// threads come and go. Spawning every sandbox from this thread, which lives as long as the
// daemon, means a sandbox dies exactly when the daemon does — and never earlier.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace kg::sandbox {

// What a spawned process gets beyond argv and its log.
struct SpawnOptions {
  // (descriptor in the daemon, number it gets in the child): the only descriptors the child
  // inherits besides stdin/stdout/stderr.
  std::vector<std::pair<int, int>> inherited_fds;
  // cgroup.procs files the child joins before exec, so all it starts is born inside.
  std::vector<std::string> cgroup_procs_files;
  // When set (the daemon runs as root), the child drops to this uid/gid before exec.
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
};

class ProcessSpawner {
 public:
  ProcessSpawner();
  ~ProcessSpawner();
  ProcessSpawner(const ProcessSpawner&) = delete;
  ProcessSpawner& operator=(const ProcessSpawner&) = delete;

  // Starts argv[0] (searched on PATH) with stdin from /dev/null and stdout+stderr appended to
  // log_path. Returns the pid; throws std::runtime_error naming the program (and the step:
  // joining a cgroup, changing user, exec) when it cannot start. Safe to call from any thread.
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log_path,
              const SpawnOptions& options = {});

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kg::sandbox
