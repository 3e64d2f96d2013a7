// Runs a real kode-gopherd for a test: its own temp state dir, socket and config, the plugins
// and sandbox parts from the build tree, and a base Go build cache shared by all integration
// tests (in the build dir, prewarmed once). Talks to it with the same UnixHttpClient the CLI uses.
#pragma once

#include <rapidjson/document.h>
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "unix_http_client.hpp"

namespace kg::test {

std::string required_env(const char* name);

std::string unique_temp_dir(const std::string& prefix);

// What a test may change about its daemon's config.
// Builds the shared base caches (`kode-gopherd --prewarm` with `config_path`) once per test
// process; start() calls it. A test that leaves the host's network (the Go module proxy) calls it
// first. Throws std::runtime_error with the daemon's output when it fails.
void prewarm_once(const std::string& daemon, const std::string& config_path);
// prewarm_once with the config of a fixture made for it ($KG_DAEMON): for a test main that
// moves into a network of its own afterwards (team-sealed, hostile-egress). Throws as it does.
void prewarm_shared_caches();

struct DaemonFixtureOptions {
  // Another base build cache than the shared prewarmed one; it is not prewarmed by start().
  std::optional<std::string> base_cache_dir;
  // An empty base build cache in the fixture's own folder, removed with it and not prewarmed:
  // for daemons that build nothing on the host (the sandbox image carries the cache, or the test
  // runs no Go program). Without it such tests left a folder in /tmp per daemon.
  bool empty_base_cache = false;
  // Leave [daemon] state_dir out of the config, so the daemon picks its default.
  bool default_state_dir = false;
  std::string extra_sandbox_keys;  // "key = value\n" lines appended to [sandbox]
  std::vector<std::string> extra_plugin_dirs;  // after KG_PLUGIN_DIR in [plugins] dirs
  std::string extra_sections;  // whole "[section]\nkey = value\n" blocks appended to the config
  // [sandbox] yaegi_runner_binary; nullopt: KG_YAEGI_RUNNER (the build's runner), if any.
  std::optional<std::string> yaegi_runner_binary;
};

class DaemonFixture {
 public:
  explicit DaemonFixture(DaemonFixtureOptions options = {});
  ~DaemonFixture();

  void start();               // starts kode-gopherd and waits until /v1/health answers
  void stop_gracefully();     // SIGTERM, waits for exit; returns nothing, CHECKs exit code 0
  void kill_hard();           // SIGKILL, reaps
  bool running();
  pid_t pid() const { return pid_; }

  const std::string& dir() const { return dir_; }
  const std::string& config_path() const { return config_path_; }
  const std::string& socket_path() const { return socket_path_; }
  const std::string& state_dir() const { return state_dir_; }

  net::HttpResponse get(const std::string& target) const;
  net::HttpResponse post(const std::string& target, const std::string& body) const;
  net::HttpResponse del(const std::string& target) const;
  rapidjson::Document json(const net::HttpResponse& response) const;

  // POSTs with Accept: application/x-ndjson and hands each line to on_line as it arrives;
  // returns the HTTP status when the daemon ends the stream. Poco's exceptions propagate (the
  // daemon may go away mid-stream).
  int post_streaming(const std::string& target, const std::string& body,
                     const std::function<void(const std::string&)>& on_line) const;

  // Opens a session and returns its id.
  std::string open_session();
  // POSTs {"files": {"main.go": source}} (plus extra JSON members) to the session's execute.
  rapidjson::Document execute(const std::string& session_id, const std::string& main_go,
                              const std::string& extra_members = "");

  // Pids of live sandbox processes (bubblewrap and what it runs) of this fixture's daemon: by
  // bubblewrap's command line, and by the daemon's cgroup for what runs inside.
  std::vector<pid_t> sandbox_processes() const;

 private:
  std::string dir_, config_path_, socket_path_, state_dir_;
  bool prewarm_ = true;
  pid_t started_pid_ = -1;  // the last daemon started, also after it stopped
  pid_t pid_ = -1;
  net::UnixHttpClient client_;
};

// Runs the CLI with arguments; returns exit code and captured stdout (+stderr into err).
int run_cli(const std::vector<std::string>& args, std::string& out, std::string& err);

std::string json_string(const rapidjson::Value& object, const char* key);

// A file under /proc, whole; "" when the process is gone. (An ifstream throws when a process
// exits between the open and the read: the read fails with ESRCH.)
std::string read_proc_file(const std::string& path);

}  // namespace kg::test
