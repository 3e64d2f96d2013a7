// What one kode-gopher-sandbox serves and its limits; filled from the command line by main()
// (see command_line.hpp) or directly by tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace kg::sandbox {

struct SandboxServerOptions {
  std::filesystem::path workdir = "/app";
  // Kill every process outside the server's ancestry after each command; only safe when the
  // server is alone in its pid namespace.
  bool reap_strays = false;
  std::uint64_t max_upload_bytes = 256ull << 20;  // /upload file, /upload-tar extracted total
  std::uint64_t max_json_bytes = 1ull << 20;      // /execute body
  std::uint64_t stream_cap_bytes = 4ull << 20;    // per output stream of /execute
  // Writable folders besides the workdir (the home, /tmp): an /execute with "clean_state"
  // empties them first, so what it builds reads nothing an earlier command left there.
  std::vector<std::filesystem::path> scratch_dirs;
  // A session's scratch folder kept across calls; <workdir>/persist links to it for every
  // command but a clean_state one. Empty: none.
  std::filesystem::path persist_dir;
  // cgroup.procs descriptors of the commands' cgroups (the host made and opened them): every
  // command is born there, started by the command launcher (command_launcher.hpp).
  std::vector<int> command_cgroup_fds;
  // [sandbox] network = allowlist: the daemon's egress proxy socket, bound into the sandbox;
  // the server bridges 127.0.0.1:3128 to it (egress_bridge.hpp). Empty: no bridge.
  std::filesystem::path egress_proxy_socket;
  // The sandbox shares the host's network namespace ([sandbox] network = host), so its loopback
  // is the host's: a metadata emulator there would serve the token to every host process, and
  // /execute refuses credentials.
  bool shares_host_network = false;
};

}  // namespace kg::sandbox
