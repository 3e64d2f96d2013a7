#include "process_spawner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace kg::sandbox {
namespace {

pid_t spawn_now(const std::vector<std::string>& argv, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw std::runtime_error("Cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  return pid;
}

}  // namespace

ProcessSpawner::ProcessSpawner() : thread_([this] { run(); }) {}

ProcessSpawner::~ProcessSpawner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

pid_t ProcessSpawner::spawn(const std::vector<std::string>& argv, const std::string& log_path) {
  if (argv.empty()) throw std::runtime_error("Cannot start a process without a program");
  auto task = std::make_shared<std::packaged_task<pid_t()>>(
      [&argv, &log_path] { return spawn_now(argv, log_path); });
  auto result = task->get_future();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) throw std::runtime_error("Cannot start " + argv[0] + ": the daemon is stopping");
    jobs_.emplace_back([task] { (*task)(); });
  }
  wake_.notify_one();
  return result.get();
}

void ProcessSpawner::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty() && stopping_) return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

}  // namespace kg::sandbox
