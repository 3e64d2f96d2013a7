// Where everything a local sandbox is made of lives on the host, and the bubblewrap command
// line that assembles it. Pure data and a pure function, so the isolation it describes can be
// read (and tested) in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox_paths.hpp"

namespace kg::sandbox {

struct LocalSandboxLayout {
  std::string bwrap_path;        // the bwrap executable
  std::string server_binary;     // kode-gopher-sandbox on the host
  std::string cacheprog_binary;  // kode-gopher-cacheprog on the host
  std::string fastbuild_binary;  // kode-gopher-fastbuild on the host
  std::string yaegi_runner_binary;  // kode-gopher-yaegi on the host; empty: none (no yaegi)
  // kode-gopher-yaegi-cloud (the runner with the curated packages' symbols, which the runner
  // execs for programs importing them); empty: none
  std::string yaegi_cloud_runner_binary;
  std::string go_root;           // GOROOT on the host, bound read-only at the same path
  std::string base_cache_dir;    // the prewarmed Go build cache (native layout)
  std::string base_modcache_dir; // the Go module cache with the lockfile's modules
  std::string lockfile_dir;      // sandbox/lockfile: go.mod, go.sum, curated.go
  // per-sandbox state: <state_dir>/sandboxes. No host-wide cache is ever bound: each sandbox
  // sees only what the daemon puts in its own host folders (below).
  std::string sandboxes_dir;
  // Paths inside every sandbox where it sees a folder of its own that only the daemon writes
  // (CallHandle::host_folder): on the host, host_folder_name() in its state folder, bound
  // read-only. The Go side fills them with links to the sandbox's owner's cache entries
  // (daemon/gocache, docs/security.md); the provider knows nothing of what goes in.
  std::vector<std::string> host_folders;
  // [sandbox] network = host: keep the host's network namespace (loopback services included).
  // An explicit, unsafe opt-in for benchmarks and emulators; never for untrusted code.
  bool share_host_network = false;
  // [sandbox] network = egress: a private network namespace with outbound access through
  // slirp4netns (egress_network.hpp); the sandbox gets its resolver file from sandbox_dir.
  bool egress_network = false;
  // [sandbox] network = allowlist: a private network namespace with only its loopback, and the
  // egress proxy's socket from sandbox_dir, which the server bridges to (egress_proxy.hpp).
  bool egress_proxy = false;
  // With egress_proxy and a CA (sealed credentials, egress_tls.hpp): sandbox_dir/ca-bundle.pem,
  // the system's CA certificates and the daemon's egress CA, bound read-only at kSandboxCaBundlePath
  // and named by the variables HTTPS clients read (SSL_CERT_FILE, REQUESTS_CA_BUNDLE,
  // CURL_CA_BUNDLE, CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH) and over
  // the system bundle /etc/ssl/certs/ca-certificates.crt, for clients that read no variable.
  bool egress_ca = false;
  // Size of each private writable folder (/app, /tmp, the home): memory-backed tmpfs, so a full
  // disk is the sandbox's own ENOSPC and its pages count against its memory limit.
  std::uint64_t disk_bytes = 1ull << 30;
};

// Descriptor numbers bubblewrap finds open (the provider passes them; -1: not used).
struct BwrapDescriptors {
  int seccomp = -1;  // the BPF program (seccomp_filter.hpp)
  int info = -1;     // bubblewrap writes {"child-pid": N} here once the sandbox exists
  // The server's listening socket, made by the daemon on the host: the sandbox sees no socket
  // file, so no code inside can reach its own server or plant files beside it.
  int listener = -1;
  // Descriptors of the commands' cgroup.procs files (sandbox_cgroup.hpp): the server puts every
  // command there, apart from itself, so an out-of-memory command is the one the kernel kills.
  std::vector<int> command_cgroups;
};

enum class BaseCacheAccess {
  layered,   // normal sandboxes: base read-only, writes go to a private layer (GOCACHEPROG)
  writable,  // the prewarm sandbox: base bound read-write as GOCACHE
};

// Where the host folder seen at sandbox_path lives in a sandbox's state folder:
// "host-folders/<the last part of sandbox_path>".
std::string host_folder_name(std::string_view sandbox_path);

// The bwrap argument vector (argv[0] included) for one sandbox whose private state lives in
// sandbox_dir (with tmp/ for the prewarm sandbox). sandbox_id marks bubblewrap's command line,
// so reap_orphans() can tell its process from a reused pid.
std::vector<std::string> bwrap_arguments(const LocalSandboxLayout& layout,
                                         const std::string& sandbox_dir, BaseCacheAccess access,
                                         const BwrapDescriptors& descriptors = {},
                                         const std::string& sandbox_id = "");

}  // namespace kg::sandbox
