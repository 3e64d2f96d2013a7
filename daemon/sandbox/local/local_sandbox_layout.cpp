#include "local_sandbox_layout.hpp"

#include <filesystem>

namespace kg::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSystemCaBundle = "/etc/ssl/certs/ca-certificates.crt";

// The host's top-level system folders: merged-/usr systems have them as symlinks into /usr.
void add_system_dirs(std::vector<std::string>& args) {
  args.insert(args.end(), {"--ro-bind", "/usr", "/usr"});
  for (const char* dir : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::error_code ec;
    const auto status = fs::symlink_status(dir, ec);
    if (ec || !fs::exists(status)) continue;
    if (fs::is_symlink(status)) {
      args.insert(args.end(), {"--symlink", fs::read_symlink(dir, ec).string(), dir});
    } else if (fs::is_directory(status)) {
      args.insert(args.end(), {"--ro-bind", dir, dir});
    }
  }
  // The dynamic loader's cache: without it multiarch libraries are not found.
  args.insert(args.end(), {"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"});
}

void add_env(std::vector<std::string>& args, const std::string& name, const std::string& value) {
  args.insert(args.end(), {"--setenv", name, value});
}

// A private, size-bounded, memory-backed folder owned by the sandbox user.
void add_private_tmpfs(std::vector<std::string>& args, const std::string& path,
                       std::uint64_t size_bytes, const char* mode) {
  args.insert(args.end(), {"--perms", mode, "--size", std::to_string(size_bytes), "--tmpfs", path});
}

}  // namespace

std::string host_folder_name(std::string_view sandbox_path) {
  return "host-folders/" + std::string(sandbox_path.substr(sandbox_path.rfind('/') + 1));
}

std::vector<std::string> bwrap_arguments(const LocalSandboxLayout& layout,
                                         const std::string& sandbox_dir, BaseCacheAccess access,
                                         const BwrapDescriptors& descriptors,
                                         const std::string& sandbox_id) {
  const std::string home = kSandboxHome;
  std::vector<std::string> args = {
      layout.bwrap_path,
      // Fresh namespaces: no host network (not even loopback), processes, IPC or hostname.
      "--unshare-user", "--unshare-pid",
      // The server is the namespace's pid 1, with no bubblewrap init beside it: pid 1 cannot be
      // signalled from inside, makes itself non-dumpable (no /proc/1/mem, environ, fd for user
      // code) and, as init, kills every other process atomically after each command.
      "--as-pid-1",
  };
  // The only exception, an explicit opt-in: the host's network, loopback services included.
  if (!layout.share_host_network) args.push_back("--unshare-net");
  args.insert(args.end(), {
      "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
      "--uid", "1000", "--gid", "1000", "--hostname", "kode-gopher",
      // The sandbox dies with the daemon; commands cannot reach the daemon's terminal.
      "--die-with-parent", "--new-session",
      // No capability survives, not even in the bounding set; no nested user namespaces.
      "--cap-drop", "ALL", "--disable-userns",
  });
  if (descriptors.seccomp >= 0) {
    args.insert(args.end(), {"--seccomp", std::to_string(descriptors.seccomp)});
  }
  if (descriptors.info >= 0) {
    args.insert(args.end(), {"--info-fd", std::to_string(descriptors.info)});
  }
  if (!sandbox_id.empty()) add_env(args, "KODE_GOPHER_SANDBOX", sandbox_id);
  add_system_dirs(args);
  if (layout.share_host_network) {
    args.insert(args.end(), {"--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"});
  }
  if (layout.egress_network) {
    // slirp4netns's resolver, and the CA certificates HTTPS clients need.
    args.insert(args.end(), {"--ro-bind", sandbox_dir + "/resolv.conf", "/etc/resolv.conf"});
    args.insert(args.end(), {"--ro-bind-try", "/etc/ssl/certs", "/etc/ssl/certs"});
  }
  if (layout.egress_proxy) {
    // The proxy resolves names itself; HTTPS clients still need the CA certificates.
    args.insert(args.end(), {"--ro-bind", sandbox_dir + "/egress.sock", kSandboxEgressProxySocket});
    args.insert(args.end(), {"--ro-bind-try", "/etc/ssl/certs", "/etc/ssl/certs"});
    if (layout.egress_ca) {
      const std::string bundle = sandbox_dir + "/ca-bundle.pem";
      args.insert(args.end(), {"--ro-bind", bundle, kSandboxCaBundlePath});
      std::error_code ec;
      if (fs::exists(kSystemCaBundle, ec)) {
        args.insert(args.end(), {"--ro-bind", bundle, kSystemCaBundle});
      }
    }
  }
  if (!layout.go_root.starts_with("/usr/")) {
    args.insert(args.end(), {"--ro-bind", layout.go_root, layout.go_root});
  }
  args.insert(args.end(), {"--ro-bind", layout.server_binary, kSandboxServerPath});
  args.insert(args.end(), {"--ro-bind", layout.cacheprog_binary, kSandboxCacheprogPath});
  args.insert(args.end(), {"--ro-bind", layout.fastbuild_binary, kSandboxFastbuildPath});
  if (!layout.yaegi_runner_binary.empty()) {
    args.insert(args.end(), {"--ro-bind", layout.yaegi_runner_binary, kSandboxYaegiRunnerPath});
  }
  if (!layout.yaegi_cloud_runner_binary.empty()) {
    args.insert(args.end(),
                {"--ro-bind", layout.yaegi_cloud_runner_binary, kSandboxYaegiCloudRunnerPath});
  }
  args.insert(args.end(), {access == BaseCacheAccess::writable ? "--bind" : "--ro-bind",
                           layout.base_cache_dir, kSandboxBaseCachePath});
  args.insert(args.end(), {"--ro-bind", layout.base_modcache_dir, kSandboxModcachePath});
  args.insert(args.end(), {"--ro-bind", layout.lockfile_dir, kSandboxLockfilePath});
  for (const auto& folder : layout.host_folders) {
    args.insert(args.end(), {"--ro-bind", sandbox_dir + "/" + host_folder_name(folder), folder});
  }
  args.insert(args.end(), {"--proc", "/proc", "--dev", "/dev"});
  add_private_tmpfs(args, "/dev/shm", layout.disk_bytes, "1777");
  // No pseudo-terminals: a build or a program needs none, and each one comes from a pool the
  // whole host shares. bubblewrap's devpts is covered by an empty, read-only folder.
  add_private_tmpfs(args, "/dev/pts", 4096, "0755");
  add_private_tmpfs(args, "/app", layout.disk_bytes, "0755");
  add_private_tmpfs(args, home, layout.disk_bytes, "0700");
  add_private_tmpfs(args, kSandboxPersistPath, layout.disk_bytes, "0755");
  if (access == BaseCacheAccess::writable) {
    // The prewarm build (trusted: the curated lockfile only) keeps every package's archive in
    // its work folder until it links: gigabytes, so on the host's disk, not in memory.
    args.insert(args.end(), {"--bind", sandbox_dir + "/tmp", "/tmp"});
  } else {
    add_private_tmpfs(args, "/tmp", layout.disk_bytes, "1777");
  }
  // Every writable place is one of the bounded tmpfs folders above: the root and /dev, which
  // bubblewrap makes as unbounded tmpfs, become read-only once everything is mounted.
  args.insert(args.end(), {"--remount-ro", "/dev/pts", "--remount-ro", "/dev", "--remount-ro", "/"});
  args.insert(args.end(), {"--clearenv", "--chdir", "/app"});
  add_env(args, "HOME", home);
  add_env(args, "USER", "gopher");
  add_env(args, "TMPDIR", "/tmp");
  add_env(args, "PATH", layout.go_root + "/bin:/usr/local/bin:/usr/bin:/bin");
  add_env(args, "GOROOT", layout.go_root);
  add_env(args, "GOPATH", home + "/go");
  add_env(args, "GOMODCACHE", kSandboxModcachePath);
  add_env(args, "GOTOOLCHAIN", "local");
  add_env(args, "GOTELEMETRY", "off");
  add_env(args, "GOPROXY", "off");
  add_env(args, "GOFLAGS", "-mod=mod");
  add_env(args, "CGO_ENABLED", "0");
  if (layout.egress_proxy && layout.egress_ca) {
    for (const char* name : kCaBundleVariables) {
      add_env(args, name, kSandboxCaBundlePath);
    }
  }
  if (access == BaseCacheAccess::writable) {
    add_env(args, "GOCACHE", kSandboxBaseCachePath);
  } else {
    add_env(args, "GOCACHE", home + "/.cache/go-build");
    add_env(args, "GOCACHEPROG", std::string(kSandboxCacheprogPath) + " -base " +
                                     kSandboxBaseCachePath + " -upper " + home +
                                     "/.cache/kode-gopher-upper");
  }
  args.insert(args.end(), {kSandboxServerPath, "--listen",
                           "fd:" + std::to_string(descriptors.listener), "--workdir", "/app",
                           "--reap-strays", "--scratch-dir", home, "--scratch-dir", "/tmp", "--scratch-dir", "/dev/shm",
                           "--persist-dir", kSandboxPersistPath});
  if (layout.egress_proxy) {
    args.insert(args.end(), {"--egress-proxy-socket", kSandboxEgressProxySocket});
  }
  if (layout.share_host_network) args.push_back("--shares-host-network");
  for (const int fd : descriptors.command_cgroups) {
    args.insert(args.end(), {"--command-cgroup-fd", std::to_string(fd)});
  }
  return args;
}

}  // namespace kg::sandbox
