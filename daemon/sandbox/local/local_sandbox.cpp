#include "local_sandbox.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "egress_proxy.hpp"
#include "unix_http_client.hpp"
#include "local_sandbox_handle.hpp"
#include "local_sandbox_layout.hpp"
#include "remove_tree.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;

LocalSandbox::LocalSandbox(std::string id, std::string dir, pid_t bwrap_pid, pid_t init_pid,
                           std::unique_ptr<SandboxCgroup> cgroup,
                           const LocalSandboxPolicy& policy,
                           std::vector<std::string> host_folders, plugin::Logger& logger)
    : id_(std::move(id)),
      dir_(std::move(dir)),
      bwrap_pid_(bwrap_pid),
      init_pid_(init_pid),
      cgroup_(std::move(cgroup)),
      policy_(policy),
      host_folders_(std::move(host_folders)),
      logger_(logger),
      client_(std::make_unique<net::UnixHttpClient>(dir_ + "/sandbox.sock")) {}

LocalSandbox::~LocalSandbox() { stop(); }

void LocalSandbox::keep_egress_proxy(std::unique_ptr<EgressProxy> proxy) {
  egress_proxy_ = std::move(proxy);
}

void LocalSandbox::begin_egress_call(EgressCallSetup setup) {
  sealed_call_without_proxy_ = !egress_proxy_ && network_.has_value() && setup.sealed.has_value();
  if (egress_proxy_) egress_proxy_->begin_call(std::move(setup));
}

EgressCallReport LocalSandbox::end_egress_call() {
  EgressCallReport report = egress_proxy_ ? egress_proxy_->end_call() : EgressCallReport{};
  if (sealed_call_without_proxy_) {
    report.refusals.push_back(
        "sealed credentials: this sandbox reaches the internet without the daemon's egress proxy "
        "([sandbox] network = egress), so the program held only a placeholder token that no "
        "Google API accepts; use network = allowlist, or the credential plugin's mode = "
        "access-token to hand the sandbox the token itself (docs/credentials.md)");
    sealed_call_without_proxy_ = false;
  }
  return report;
}

std::unique_ptr<CallHandle> LocalSandbox::call_handle(const CallServices& services) {
  if (services.owner) {
    if (!owner_) owner_ = services.owner;
    if (*owner_ != *services.owner) {
      throw plugin::SandboxError("Sandbox " + id_ + " serves another user (and may hold what "
                                 "the host gave that user); it is never used for a second user");
    }
  }
  return std::make_unique<LocalSandboxHandle>(*this, policy_, services, logger_);
}

std::optional<std::string> LocalSandbox::host_folder(std::string_view sandbox_path) const {
  for (const auto& folder : host_folders_) {
    if (folder == sandbox_path) return dir_ + "/" + host_folder_name(folder);
  }
  return std::nullopt;
}

void LocalSandbox::interrupt() noexcept {
  if (!reaped_) ::kill(bwrap_pid_, SIGKILL);
}

bool LocalSandbox::alive() {
  if (reaped_) return false;
  int status = 0;
  const pid_t rc = ::waitpid(bwrap_pid_, &status, WNOHANG);
  if (rc == bwrap_pid_ || (rc < 0 && errno == ECHILD)) {
    reaped_ = true;
    return false;
  }
  return true;
}

void LocalSandbox::wait_until_ready(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive()) {
      throw plugin::SandboxError("Sandbox " + id_ + " exited while starting: " + log_tail());
    }
    // The socket exists from the start (the daemon made it); the server answers once it runs.
    if (client_.healthy(std::chrono::milliseconds(500))) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  throw plugin::SandboxError("Sandbox " + id_ + " did not answer within " +
                             std::to_string(timeout.count()) + " ms: " + log_tail());
}

std::string LocalSandbox::log_tail() const {
  std::ifstream in(dir_ + "/sandbox.log");
  std::string line, last;
  std::ostringstream all;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "no output (see " + dir_ + "/sandbox.log)" : last;
}

void LocalSandbox::stop() noexcept {
  if (!reaped_) {
    // The sandbox's pid 1 first: killing it ends its pid namespace, whatever bubblewrap was
    // doing (a bubblewrap killed early in its setup may miss --die-with-parent).
    if (init_pid_ > 0) ::kill(init_pid_, SIGKILL);
    ::kill(bwrap_pid_, SIGKILL);
    int status = 0;
    while (::waitpid(bwrap_pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  network_.reset();
  egress_proxy_.reset();
  // Whatever escaped the pid namespace's end (nothing should) dies with the cgroup.
  cgroup_.reset();
  if (!dir_.empty() && fs::exists(dir_)) {
    remove_tree(dir_);
    logger_.log(plugin::LogLevel::debug, "Sandbox " + id_ + " stopped and removed");
  }
}

}  // namespace kg::sandbox
