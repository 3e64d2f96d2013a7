#include <doctest/doctest.h>

#include <filesystem>

#include <algorithm>

#include "local_sandbox_layout.hpp"

using namespace kg::sandbox;

namespace {

LocalSandboxLayout layout() {
  LocalSandboxLayout l;
  l.bwrap_path = "/usr/bin/bwrap";
  l.server_binary = "/b/kode-gopher-sandbox";
  l.cacheprog_binary = "/b/kode-gopher-cacheprog";
  l.fastbuild_binary = "/b/kode-gopher-fastbuild";
  l.go_root = "/opt/go";
  l.base_cache_dir = "/s/gocache-base";
  l.base_modcache_dir = "/s/gomodcache-base";
  l.lockfile_dir = "/b/lockfile";
  l.sandboxes_dir = "/s/sandboxes";
  l.host_folders = {kSandboxBinaryCachePath, kSandboxExtraModcachePath};
  return l;
}

// Whether `a b c` appears in order as consecutive arguments.
bool has(const std::vector<std::string>& args, std::vector<std::string> run) {
  return std::search(args.begin(), args.end(), run.begin(), run.end()) != args.end();
}

}  // namespace

TEST_CASE("a sandbox gets fresh namespaces, read-only shared parts and private writable ones") {
  const auto args = bwrap_arguments(layout(), "/s/sandboxes/sb-1", BaseCacheAccess::layered,
                                    BwrapDescriptors{.seccomp = 3, .info = 4, .listener = 5,
                                                     .command_cgroups = {6, 7}},
                                    "sb-1");
  CHECK(args.front() == "/usr/bin/bwrap");
  for (const char* flag : {"--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                           "--unshare-uts", "--die-with-parent", "--new-session", "--clearenv",
                           "--disable-userns", "--as-pid-1"}) {
    CHECK(has(args, {flag}));
  }
  CHECK(has(args, {"--cap-drop", "ALL"}));
  CHECK(has(args, {"--seccomp", "3"}));
  CHECK(has(args, {"--info-fd", "4"}));
  CHECK(has(args, {"--ro-bind", "/usr", "/usr"}));
  CHECK(has(args, {"--ro-bind", "/opt/go", "/opt/go"}));
  CHECK(has(args, {"--ro-bind", "/s/gocache-base", kSandboxBaseCachePath}));
  CHECK(has(args, {"--ro-bind", "/s/gomodcache-base", kSandboxModcachePath}));
  // The binary and tidy module caches are never bound whole: only the sandbox's own host
  // folders, which the Go side fills with links to its owner's entries (docs/security.md).
  CHECK(has(args, {"--ro-bind", "/s/sandboxes/sb-1/host-folders/bincache", kSandboxBinaryCachePath}));
  CHECK(has(args, {"--ro-bind", "/s/sandboxes/sb-1/host-folders/gomodcache-extra",
                   kSandboxExtraModcachePath}));
  for (const auto& arg : args) {
    CHECK_FALSE(arg.starts_with("/s/bincache"));
    CHECK_FALSE(arg.starts_with("/s/gomodcache-extra"));
  }
  CHECK(has(args, {"--ro-bind", "/b/kode-gopher-fastbuild", kSandboxFastbuildPath}));
  // Private writable folders are size-bounded tmpfs, never host folders; the rest is read-only.
  const std::string size = std::to_string(1ull << 30);
  CHECK(has(args, {"--perms", "0755", "--size", size, "--tmpfs", "/app"}));
  CHECK(has(args, {"--perms", "0700", "--size", size, "--tmpfs", "/home/gopher"}));
  CHECK(has(args, {"--perms", "1777", "--size", size, "--tmpfs", "/tmp"}));
  CHECK(has(args, {"--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"}));
  CHECK(has(args, {"--perms", "0755", "--size", size, "--tmpfs", "/persist"}));
  CHECK(std::count(args.begin(), args.end(), "--bind") == 0);
  CHECK(has(args, {"--remount-ro", "/dev/pts", "--remount-ro", "/dev", "--remount-ro", "/"}));
  CHECK(has(args, {"--perms", "0755", "--size", "4096", "--tmpfs", "/dev/pts"}));
  // The server listens on the daemon's socket and puts commands in their own cgroup.
  CHECK(has(args, {"--listen", "fd:5"}));
  CHECK(has(args, {"--command-cgroup-fd", "6", "--command-cgroup-fd", "7"}));
  CHECK(has(args, {"--scratch-dir", "/home/gopher", "--scratch-dir", "/tmp", "--scratch-dir",
                   "/dev/shm", "--persist-dir", "/persist"}));
  // The sandbox id marks bubblewrap's command line; --clearenv comes after, so it is not kept.
  CHECK(has(args, {"--setenv", "KODE_GOPHER_SANDBOX", "sb-1"}));
  CHECK(has(args, {"--setenv", "GOPROXY", "off"}));
  CHECK(has(args, {"--setenv", "GOCACHEPROG",
                   "/opt/kode-gopher/bin/kode-gopher-cacheprog -base /opt/kode-gopher/gocache-base "
                   "-upper /home/gopher/.cache/kode-gopher-upper"}));
  // Nothing of the host's home, state or sockets is mounted.
  for (const auto& arg : args) {
    CHECK_FALSE(arg.starts_with("/root"));
    const bool host_home = arg.starts_with("/home/") && !arg.starts_with("/home/gopher");
    CHECK_FALSE(host_home);
  }
  CHECK(has(args, {"--reap-strays"}));
}

TEST_CASE("the private folders take the configured size; descriptors are passed only when given") {
  auto small = layout();
  small.disk_bytes = 16 << 20;
  const auto args = bwrap_arguments(small, "/s/sandboxes/sb-4", BaseCacheAccess::layered);
  CHECK(has(args, {"--size", std::to_string(16 << 20), "--tmpfs", "/tmp"}));
  CHECK_FALSE(has(args, {"--seccomp"}));
  CHECK_FALSE(has(args, {"--info-fd"}));
}

TEST_CASE("only the prewarm sandbox may write the base cache") {
  const auto args = bwrap_arguments(layout(), "/s/sandboxes/sb-2", BaseCacheAccess::writable);
  CHECK(has(args, {"--bind", "/s/gocache-base", kSandboxBaseCachePath}));
  CHECK(has(args, {"--setenv", "GOCACHE", kSandboxBaseCachePath}));
  CHECK_FALSE(has(args, {"--setenv", "GOCACHEPROG"}));
  // Its go build work folder holds every package at once: on disk, not a bounded tmpfs.
  CHECK(has(args, {"--bind", "/s/sandboxes/sb-2/tmp", "/tmp"}));
}

TEST_CASE("the host's network is shared only on explicit opt-in, with its resolver file") {
  const auto isolated = bwrap_arguments(layout(), "/s/sandboxes/sb-3", BaseCacheAccess::layered);
  CHECK(has(isolated, {"--unshare-net"}));
  CHECK_FALSE(has(isolated, {"--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"}));

  auto shared_layout = layout();
  shared_layout.share_host_network = true;
  const auto shared = bwrap_arguments(shared_layout, "/s/sandboxes/sb-3", BaseCacheAccess::layered);
  CHECK_FALSE(has(shared, {"--unshare-net"}));
  CHECK(has(shared, {"--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"}));
  // Every other namespace stays private.
  for (const char* flag : {"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"}) {
    CHECK(has(shared, {flag}));
  }
  // ...and the server refuses credentials there (its loopback is the host's).
  CHECK(has(shared, {"--shares-host-network"}));
  CHECK_FALSE(has(isolated, {"--shares-host-network"}));
  CHECK(shared.size() == isolated.size() - 1 + 3 + 1);
}

TEST_CASE("an allowlist sandbox gets the egress proxy's socket and the server bridges to it") {
  const auto isolated = bwrap_arguments(layout(), "/s/sandboxes/sb-4", BaseCacheAccess::layered);
  CHECK_FALSE(has(isolated, {"--egress-proxy-socket"}));
  auto allowlist_layout = layout();
  allowlist_layout.egress_proxy = true;
  const auto allowlist = bwrap_arguments(allowlist_layout, "/s/sandboxes/sb-4", BaseCacheAccess::layered);
  CHECK(has(allowlist, {"--unshare-net"}));  // no route out: only the proxy
  CHECK(has(allowlist, {"--ro-bind", "/s/sandboxes/sb-4/egress.sock", kSandboxEgressProxySocket}));
  CHECK(has(allowlist, {"--egress-proxy-socket", kSandboxEgressProxySocket}));
  CHECK(has(allowlist, {"--ro-bind-try", "/etc/ssl/certs", "/etc/ssl/certs"}));
  CHECK_FALSE(has(allowlist, {"--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"}));
  CHECK_FALSE(has(allowlist, {"--setenv", "SSL_CERT_FILE", kSandboxCaBundlePath}));
}

TEST_CASE("with the daemon's egress CA, an allowlist sandbox trusts it where HTTPS clients look") {
  auto sealed_layout = layout();
  sealed_layout.egress_proxy = true;
  sealed_layout.egress_ca = true;
  const auto args = bwrap_arguments(sealed_layout, "/s/sandboxes/sb-5", BaseCacheAccess::layered);
  CHECK(has(args, {"--ro-bind", "/s/sandboxes/sb-5/ca-bundle.pem", kSandboxCaBundlePath}));
  if (std::filesystem::exists("/etc/ssl/certs/ca-certificates.crt")) {
    CHECK(has(args, {"--ro-bind", "/s/sandboxes/sb-5/ca-bundle.pem", "/etc/ssl/certs/ca-certificates.crt"}));
  }
  for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                           "CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"}) {
    CAPTURE(name);
    CHECK(has(args, {"--setenv", name, kSandboxCaBundlePath}));
  }
}

TEST_CASE("the Yaegi runner is mounted read-only when the install has one, else not at all") {
  auto with_runner = layout();
  with_runner.yaegi_runner_binary = "/b/kode-gopher-yaegi";
  with_runner.yaegi_cloud_runner_binary = "/b/kode-gopher-yaegi-cloud";
  const auto args = bwrap_arguments(with_runner, "/s/sandboxes/sb-1", BaseCacheAccess::layered);
  CHECK(has(args, {"--ro-bind", "/b/kode-gopher-yaegi", kSandboxYaegiRunnerPath}));
  CHECK(has(args, {"--ro-bind", "/b/kode-gopher-yaegi-cloud", kSandboxYaegiCloudRunnerPath}));
  const auto without = bwrap_arguments(layout(), "/s/sandboxes/sb-1", BaseCacheAccess::layered);
  CHECK(std::find(without.begin(), without.end(), kSandboxYaegiRunnerPath) == without.end());
  CHECK(std::find(without.begin(), without.end(), kSandboxYaegiCloudRunnerPath) == without.end());
}
