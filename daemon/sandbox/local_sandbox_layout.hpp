// Where everything a local sandbox is made of lives on the host, and the bubblewrap command
// line that assembles it. Pure data and a pure function, so the isolation it describes can be
// read (and tested) in one place.
#pragma once

#include <string>
#include <vector>

namespace kg::sandbox {

// Paths inside every sandbox.
inline constexpr const char* kSandboxServerPath = "/opt/kode-gopher/bin/kode-gopher-sandbox";
inline constexpr const char* kSandboxCacheprogPath = "/opt/kode-gopher/bin/kode-gopher-cacheprog";
inline constexpr const char* kSandboxBaseCachePath = "/opt/kode-gopher/gocache-base";
inline constexpr const char* kSandboxModcachePath = "/opt/kode-gopher/gomodcache";
inline constexpr const char* kSandboxExtraModcachePath = "/opt/kode-gopher/gomodcache-extra";
inline constexpr const char* kSandboxLockfilePath = "/opt/kode-gopher/lockfile";
inline constexpr const char* kSandboxBinaryCachePath = "/opt/kode-gopher/bincache";
inline constexpr const char* kSandboxHome = "/home/gopher";
inline constexpr const char* kSandboxSocketDir = "/run/kode-gopher";

struct LocalSandboxLayout {
  std::string bwrap_path;        // the bwrap executable
  std::string server_binary;     // kode-gopher-sandbox on the host
  std::string cacheprog_binary;  // kode-gopher-cacheprog on the host
  std::string go_root;           // GOROOT on the host, bound read-only at the same path
  std::string base_cache_dir;    // the prewarmed Go build cache (native layout)
  std::string base_modcache_dir; // the Go module cache with the lockfile's modules
  std::string extra_modcache_dir; // modules go mod tidy fetched (ModuleTidier)
  std::string lockfile_dir;      // sandbox/lockfile: go.mod, go.sum, curated.go
  std::string binary_cache_dir;  // BinaryCache's folder
  std::string sandboxes_dir;     // per-sandbox state: <state_dir>/sandboxes
  // [sandbox] network = host: keep the host's network namespace (loopback services included).
  // An explicit, unsafe opt-in for benchmarks and emulators; never for untrusted code.
  bool share_host_network = false;
};

enum class BaseCacheAccess {
  layered,   // normal sandboxes: base read-only, writes go to a private layer (GOCACHEPROG)
  writable,  // the prewarm sandbox: base bound read-write as GOCACHE
};

// The bwrap argument vector (argv[0] included) for one sandbox whose private state lives in
// sandbox_dir (with app/, home/, tmp/, run/ already created).
std::vector<std::string> bwrap_arguments(const LocalSandboxLayout& layout,
                                         const std::string& sandbox_dir, BaseCacheAccess access);

}  // namespace kg::sandbox
