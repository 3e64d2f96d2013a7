#include "local_sandbox_provider.hpp"
#include "remove_tree.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rapidjson/document.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "egress_proxy.hpp"
#include "owned_fd.hpp"
#include "unix_socket_listener.hpp"
#include "sandbox_host_user.hpp"
#include "seccomp_filter.hpp"
#include "json_reader.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

// Descriptor numbers inside bubblewrap (bwrap_arguments names them on its command line).
constexpr int kSeccompFd = 3, kInfoFd = 4, kListenerFd = 5, kFirstCommandCgroupFd = 6;

std::string new_sandbox_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "sb-%012llx",
                static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
  return buffer;
}

// The command line of a live process, or empty.
std::string process_cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

// bubblewrap's --info-fd document ({"child-pid": N, ...}), read until it closes the pipe.
// Returns 0 when bubblewrap exited before writing it (its log says why).
pid_t read_init_pid(int fd, std::chrono::milliseconds timeout) {
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[1024];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("bubblewrap did not report its sandbox in time");
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) {
      throw std::runtime_error(std::string("Cannot wait for bubblewrap: ") + std::strerror(errno));
    }
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  if (text.empty()) return 0;
  const rapidjson::Document info = json::read_json(text, json::kFileLimits).document;
  const auto pid = info.IsObject() ? info.FindMember("child-pid") : rapidjson::Value::ConstMemberIterator();
  if (!info.IsObject() || pid == info.MemberEnd() || !pid->value.IsInt()) {
    throw std::runtime_error("bubblewrap's --info-fd document has no child-pid: " + text);
  }
  return pid->value.GetInt();
}

// What bubblewrap, started as the sandbox's host user, must reach: every host path it binds
// (read), and the sandboxes folder it only passes through to each sandbox's socket folder.
std::vector<PathAccess> host_paths_to_reach(const LocalSandboxLayout& layout) {
  std::vector<PathAccess> checks;
  for (const auto& file : {layout.server_binary, layout.cacheprog_binary, layout.fastbuild_binary,
                          layout.go_root + "/bin/go"}) {
    checks.push_back({file, R_OK | X_OK});
  }
  for (const auto& runner : {layout.yaegi_runner_binary, layout.yaegi_cloud_runner_binary}) {
    if (!runner.empty()) checks.push_back({runner, R_OK | X_OK});
  }
  for (const auto& dir : {layout.base_cache_dir, layout.base_modcache_dir, layout.lockfile_dir,
                          layout.go_root}) {
    checks.push_back({dir, R_OK | X_OK});
  }
  checks.push_back({layout.sandboxes_dir, X_OK});
  return checks;
}

std::string allowlist_summary(const EgressAllowlist& allowlist) {
  std::string text = "hosts";
  for (const auto& host : allowlist.hosts) text += " " + host.text();
  text += ", ports";
  for (const int port : allowlist.ports) text += " " + std::to_string(port);
  return text;
}

}  // namespace

LocalSandboxProvider::LocalSandboxProvider(LocalSandboxLayout layout, plugin::Logger& logger,
                                           LocalSandboxPolicy policy)
    : layout_(std::move(layout)), logger_(logger), policy_(policy) {
  // Sealed credentials: every allowlist sandbox trusts the daemon's egress CA.
  if (layout_.egress_proxy && policy_.egress_tls) {
    layout_.egress_ca = true;
    trust_bundle_ = policy_.egress_tls->trust_bundle_pem();
  }
  for (std::size_t i = 0; i < layout_.host_folders.size(); ++i) {
    const auto& folder = layout_.host_folders[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (host_folder_name(layout_.host_folders[j]) == host_folder_name(folder)) {
        throw plugin::SandboxError("Host folders " + layout_.host_folders[j] + " and " + folder +
                                   " would share one folder on the host");
      }
    }
    if (!folder.starts_with('/') || folder.ends_with('/')) {
      throw plugin::SandboxError("Host folder " + folder + " must be an absolute path inside the sandbox");
    }
  }
  fs::create_directories(layout_.sandboxes_dir);
  fs::create_directories(layout_.base_cache_dir);
  fs::create_directories(layout_.base_modcache_dir);
  seccomp_program_ = sandbox_seccomp_program();
  cgroups_ = CgroupHierarchy::detect(logger_);
  if (!cgroups_->available()) logger_.log(plugin::LogLevel::warn, cgroups_->description());
  if (::geteuid() != 0) {
    host_uid_note_ = "the sandbox user maps to the daemon's own uid " + std::to_string(::geteuid());
  } else if (!policy_.host_uid) {
    host_uid_note_ = "the sandbox user maps to host root ([sandbox] host_uid = 0)";
    warnings_.push_back("[sandbox] host_uid = 0: sandboxes run as host root, so a sandbox escape "
                        "would be host root; remove the key to run them as uid 65534");
    logger_.log(plugin::LogLevel::warn, "Sandboxes: " + warnings_.back());
  } else {
    ::chmod(layout_.sandboxes_dir.c_str(), 0711);  // to reach each socket folder
    if (const auto blocked = first_path_denied_to(*policy_.host_uid, *policy_.host_uid,
                                                  host_paths_to_reach(layout_))) {
      // Never a silent fall-back to root: the caller says where things go, or opts in.
      throw plugin::SandboxError(
          "Sandboxes run as host uid " + std::to_string(*policy_.host_uid) +
          " ([sandbox] host_uid), which cannot reach " + *blocked +
          ". Keep the Go toolchain, the caches and the state dir where that user can read them "
          "(a root daemon's default state dir is /var/lib/kode-gopher), or set [sandbox] "
          "host_uid = 0 to run sandboxes as host root (not advised)");
    }
    host_uid_ = policy_.host_uid;
    host_uid_note_ = "the sandbox user maps to host uid " + std::to_string(*host_uid_);
  }
}

std::vector<std::string> LocalSandboxProvider::isolation_summary() const {
  return {
      "namespaces: user, pid, mount, ipc, uts, cgroup" +
          std::string(layout_.share_host_network ? " (host network: [sandbox] network = host)"
                      : layout_.egress_network
                          ? ", net with outbound access through slirp4netns (network = egress; "
                            "no host loopback, link-local or private ranges)"
                      : layout_.egress_proxy
                          ? ", net with no route out but the daemon's egress proxy (network = "
                            "allowlist: " + allowlist_summary(policy_.egress_allowlist) + ")"
                          : ", net (no network)"),
      "capabilities dropped, no_new_privs, seccomp filter (" +
          std::to_string(seccomp_program_.size() / 8) + " BPF instructions)",
      host_uid_note_,
      cgroups_->description(),
  };
}

std::unique_ptr<Sandbox> LocalSandboxProvider::open(const SandboxRequest&) {
  return open_local(BaseCacheAccess::layered);
}

std::unique_ptr<LocalSandbox> LocalSandboxProvider::open_local(BaseCacheAccess access) {
  const std::string id = new_sandbox_id();
  const std::string dir = layout_.sandboxes_dir + "/" + id;
  try {
    fs::create_directories(dir);
    // The daemon's, read-only inside: only the daemon puts anything in its host folders.
    for (const auto& folder : layout_.host_folders) {
      const fs::path host = fs::path(dir) / host_folder_name(folder);
      fs::create_directories(host);
      for (const auto& made : {host.parent_path(), host}) {
        fs::permissions(made, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
      }
    }
    if (access == BaseCacheAccess::writable) fs::create_directories(dir + "/tmp");
    if (layout_.egress_network) std::ofstream(dir + "/resolv.conf") << EgressNetwork::resolv_conf();
    if (layout_.egress_ca) {
      std::ofstream(dir + "/ca-bundle.pem") << trust_bundle_;
      fs::permissions(dir + "/ca-bundle.pem", fs::perms::owner_read | fs::perms::owner_write |
                                                  fs::perms::group_read | fs::perms::others_read);
    }
    ::chmod(dir.c_str(), 0700);
    SpawnOptions options;
    // The prewarm sandbox (trusted: it builds only the curated lockfile) writes the base cache as
    // the daemon's user, so no other user can ever write what every sandbox links.
    if (host_uid_ && access == BaseCacheAccess::layered) {
      options.uid = *host_uid_;
      options.gid = static_cast<gid_t>(*host_uid_);
      // bubblewrap, as that user, reads resolv.conf here; the socket stays the daemon's (0600).
      if (::chown(dir.c_str(), *host_uid_, static_cast<gid_t>(*host_uid_)) != 0) {
        throw std::runtime_error("Cannot hand " + dir + " to uid " + std::to_string(*host_uid_) +
                                 ": " + std::strerror(errno));
      }
    }
    BwrapDescriptors descriptors;
    descriptors.seccomp = kSeccompFd;
    descriptors.info = kInfoFd;
    descriptors.listener = kListenerFd;
    std::vector<OwnedFd> command_cgroup_fds;
    auto cgroup = cgroups_->create(id);
    if (cgroup) {
      cgroup->set_sandbox_limits(policy_.memory_bytes, policy_.pids);
      cgroup->set_limits(policy_.memory_bytes, policy_.pids);
      options.cgroup_procs_files = cgroup->procs_files();
      for (const auto& file : cgroup->command_procs_files()) {
        command_cgroup_fds.emplace_back(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
        if (command_cgroup_fds.back().get() < 0) {
          throw std::runtime_error("Cannot open " + file + ": " + std::strerror(errno));
        }
        const int number = kFirstCommandCgroupFd + static_cast<int>(descriptors.command_cgroups.size());
        descriptors.command_cgroups.push_back(number);
        options.inherited_fds.push_back({command_cgroup_fds.back().get(), number});
      }
    }
    // Made here, as the daemon, and handed over as a descriptor: the sandbox sees no socket file.
    const auto listener = net::listen_on_unix_socket(dir + "/sandbox.sock", 0600);
    const OwnedFd seccomp(seccomp_program_fd(seccomp_program_));
    auto [info_read, info_write] = make_cloexec_pipe();
    options.inherited_fds.push_back({seccomp.get(), kSeccompFd});
    options.inherited_fds.push_back({info_write.get(), kInfoFd});
    options.inherited_fds.push_back({listener.impl()->sockfd(), kListenerFd});
    // Before bubblewrap starts, since it binds the socket into the sandbox.
    std::unique_ptr<EgressProxy> egress_proxy;
    if (layout_.egress_proxy) {
      egress_proxy = std::make_unique<EgressProxy>(id, dir + "/egress.sock", options.uid,
                                                   policy_.egress_allowlist, logger_,
                                                   EgressProxyLimits{}, policy_.egress_tls);
    }
    const auto argv = bwrap_arguments(layout_, dir, access, descriptors, id);
    const pid_t pid = spawner_.spawn(argv, dir + "/sandbox.log", options);
    info_write.reset();
    std::ofstream(dir + "/bwrap.pid") << pid << '\n';
    const pid_t init_pid = read_init_pid(info_read.get(), std::chrono::seconds(15));
    auto sandbox = std::make_unique<LocalSandbox>(id, dir, pid, init_pid, std::move(cgroup), policy_,
                                                  layout_.host_folders, logger_);
    if (egress_proxy) sandbox->keep_egress_proxy(std::move(egress_proxy));
    if (init_pid == 0) {
      sandbox->wait_until_ready(std::chrono::seconds(2));  // it exited: throws with its log
    }
    if (layout_.egress_network) {
      EgressNetworkOptions network;
      network.log_path = dir + "/slirp4netns.log";
      network.uid = options.uid;
      network.gid = options.gid;
      sandbox->keep_network(EgressNetwork::attach(init_pid, spawner_, network));
    }
    sandbox->wait_until_ready(std::chrono::seconds(15));
    logger_.log(plugin::LogLevel::debug, "Sandbox " + id + " ready (bwrap pid " +
                                             std::to_string(pid) + ")");
    return sandbox;
  } catch (...) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::exists(dir + "/bwrap.pid", ec)) remove_tree(dir);
    std::throw_with_nested(plugin::SandboxError("Failed to start sandbox " + id));
  }
}

int LocalSandboxProvider::reap_orphans() {
  int found = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(layout_.sandboxes_dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    ++found;
    const std::string dir = entry.path().string();
    std::ifstream pid_file(dir + "/bwrap.pid");
    pid_t pid = 0;
    // Only kill the recorded pid when it is still that sandbox's bubblewrap, not a reused pid.
    const std::string marker = "KODE_GOPHER_SANDBOX " + entry.path().filename().string() + " ";
    if (pid_file >> pid && pid > 1 && process_cmdline(pid).find(marker) != std::string::npos) {
      ::kill(pid, SIGKILL);
    }
    remove_tree(dir);
    logger_.log(plugin::LogLevel::info, "Reaped orphaned sandbox " + entry.path().filename().string());
  }
  return found;
}

}  // namespace kg::sandbox
