#include "command_line.hpp"

#include <CLI/CLI.hpp>

namespace kg::sandbox {

std::variant<ServerCommandLine, int> parse_command_line(int argc, char** argv) {
  ServerCommandLine parsed;
  std::string workdir = parsed.options.workdir.string();
  CLI::App app{"kode-gopher-sandbox: serves the sandbox runtime API (/execute, /upload, "
               "/upload-tar, /download, /list, /exists, /reset) inside one sandbox"};
  app.add_option("--listen", parsed.listen,
                 "unix:/path/to/sock, tcp:HOST:PORT, or fd:N (a listening socket it inherited)")
      ->capture_default_str();
  app.add_option("--workdir", workdir, "the directory commands run in and files go to")
      ->capture_default_str();
  app.add_flag("--reap-strays", parsed.options.reap_strays,
               "after each command kill every other process in the pid namespace (use only when "
               "the server is alone in its own pid namespace)");
  app.add_option("--max-upload-bytes", parsed.options.max_upload_bytes,
                 "largest /upload file and largest /upload-tar content")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-json-bytes", parsed.options.max_json_bytes, "largest /execute body")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--stream-cap-bytes", parsed.options.stream_cap_bytes,
                 "most bytes of stdout and of stderr an /execute answer carries")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  std::vector<std::string> scratch_dirs;
  std::string persist_dir;
  app.add_option("--scratch-dir", scratch_dirs,
                 "a writable folder that /execute with clean_state empties first (repeatable)");
  app.add_option("--persist-dir", persist_dir,
                 "the session's scratch folder, linked as <workdir>/persist for commands");
  app.add_option("--command-cgroup-fd", parsed.options.command_cgroup_fds,
                 "an inherited cgroup.procs descriptor: every command runs in its cgroup (repeatable)");
  std::string egress_proxy_socket;
  app.add_option("--egress-proxy-socket", egress_proxy_socket,
                 "the host's egress proxy (a Unix socket): bridge 127.0.0.1:3128 to it and point "
                 "every command's HTTPS_PROXY/HTTP_PROXY there");
  app.add_flag("--shares-host-network", parsed.options.shares_host_network,
               "the sandbox uses the host's network namespace: refuse credentials (a metadata "
               "emulator on this loopback would be reachable by the whole host)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  parsed.options.workdir = workdir;
  for (const auto& dir : scratch_dirs) parsed.options.scratch_dirs.emplace_back(dir);
  parsed.options.persist_dir = persist_dir;
  parsed.options.egress_proxy_socket = egress_proxy_socket;
  return parsed;
}

}  // namespace kg::sandbox
