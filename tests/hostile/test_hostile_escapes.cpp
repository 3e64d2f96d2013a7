// Hostile programs that try to get out: read the host's secrets, reach the host's network, leave
// processes behind, overrun their time, burn CPU, flood the output. Real daemon, real bubblewrap
// sandboxes, real Go builds. Each test checks containment (with the program's own output, or
// from the host), the status the API reported, that the daemon still serves, and that SQLite
// recorded what the API answered.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "hostile_checks.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A Go string literal (double-quoted, escaped).
std::string go_quote(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// A TCP service on the host's 127.0.0.1 that never accepts: a connection attempt that got
// through would sit in its backlog.
class LoopbackListener {
 public:
  LoopbackListener() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t size = sizeof address;
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
    port_ = ntohs(address.sin_port);
  }
  ~LoopbackListener() { ::close(fd_); }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  int port() const { return port_; }
  // True when a connection is waiting to be accepted.
  bool has_pending_connection() const {
    pollfd entry{fd_, POLLIN, 0};
    return ::poll(&entry, 1, 0) > 0;
  }

 private:
  int fd_;
  int port_ = 0;
};

// Watches the host's /proc for processes carrying `marker` while a call runs, proving that the
// host-side scan would see an escapee if one were left.
class MarkerWatch {
 public:
  explicit MarkerWatch(std::string marker)
      : marker_(std::move(marker)), thread_([this] {
          while (!stop_) {
            if (!host_processes_with_marker(marker_).empty()) seen_ = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~MarkerWatch() { stop(); }
  MarkerWatch(const MarkerWatch&) = delete;
  MarkerWatch& operator=(const MarkerWatch&) = delete;

  bool stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return seen_;
  }

 private:
  std::string marker_;
  std::atomic<bool> stop_{false}, seen_{false};
  std::thread thread_;
};

}  // namespace

TEST_CASE("hostile escape: the host's secrets, home, gcloud config and the daemon's database stay unreadable") {
  HostileDaemon daemon;
  daemon.start();
  const std::string home = daemon.fake_home();
  const std::vector<std::string> files = {
      "/etc/shadow",
      "/etc/gshadow",
      "/root/.bashrc",
      "/root/.config/gcloud/credentials.db",
      home + "/secret.txt",
      home + "/.ssh/id_ed25519",
      home + "/.config/gcloud/credentials.db",
      home + "/.config/gcloud/application_default_credentials.json",
      home + "/.config/gcloud/configurations/config_default",
      daemon.database_path(),
      daemon.database_path() + "-wal",
      daemon->config_path(),
  };
  const std::vector<std::string> dirs = {"/root", home, home + "/.config/gcloud",
                                         daemon->state_dir(), daemon->dir()};
  std::string go_files, go_dirs;
  for (const auto& f : files) go_files += "\t\t" + go_quote(f) + ",\n";
  for (const auto& d : dirs) go_dirs += "\t\t" + go_quote(d) + ",\n";
  const auto r = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	files := []string{
)" + go_files + R"(	}
	dirs := []string{
)" + go_dirs + R"(	}
	for _, path := range files {
		if data, err := os.ReadFile(path); err != nil {
			fmt.Printf("DENIED %v\n", err)
		} else {
			fmt.Printf("READ %s (%d bytes)\n", path, len(data))
		}
	}
	for _, path := range dirs {
		if entries, err := os.ReadDir(path); err != nil {
			fmt.Printf("DENIED %v\n", err)
		} else {
			fmt.Printf("LISTED %s (%d entries)\n", path, len(entries))
		}
	}
	// The sandbox's own home has no gcloud config either, and no variable leads to the host's.
	own := os.Getenv("HOME") + "/.config/gcloud/credentials.db"
	if _, err := os.ReadFile(own); err != nil {
		fmt.Printf("DENIED %v\n", err)
	} else {
		fmt.Printf("READ %s\n", own)
	}
	for _, kv := range os.Environ() {
		if strings.Contains(kv, )" + go_quote(home) + R"() || strings.Contains(kv, "/root") {
			fmt.Printf("LEAKED %s\n", kv)
		}
	}
}
)");
  const std::string out = string_member(r, "stdout");
  INFO("program output:\n" << out << "\nstderr:\n" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "ok");
  CHECK(int_member(r, "exit_code") == 0);
  // Containment, proven by the program's own words: every attempt failed with "not there" or
  // "not allowed", and no byte of any fake secret came back.
  const auto lines = lines_of(out);
  CHECK(lines.size() == files.size() + dirs.size() + 1);
  for (const auto& line : lines) {
    CAPTURE(line);
    CHECK(line.starts_with("DENIED "));
    CHECK((line.find("no such file or directory") != std::string::npos ||
           line.find("permission denied") != std::string::npos));
  }
  CHECK(out.find(daemon.secret_marker()) == std::string::npos);
  CHECK(string_member(r, "stderr").find(daemon.secret_marker()) == std::string::npos);

  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile escape: no connection to the host's loopback, the daemon's socket or the metadata server") {
  HostileDaemon daemon;
  daemon.start();
  LoopbackListener host_service;
  const auto started = Clock::now();
  const auto r = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"net"
	"time"
)

func try(network, address string) {
	start := time.Now()
	conn, err := net.DialTimeout(network, address, 5*time.Second)
	ms := time.Since(start).Milliseconds()
	if err != nil {
		fmt.Printf("FAILED %dms %s %s: %v\n", ms, network, address, err)
		return
	}
	conn.Close()
	fmt.Printf("CONNECTED %dms %s %s\n", ms, network, address)
}

func main() {
	try("tcp", "127.0.0.1:)" + std::to_string(host_service.port()) + R"(")
	try("tcp", "localhost:)" + std::to_string(host_service.port()) + R"(")
	try("unix", )" + go_quote(daemon->socket_path()) + R"()
	try("tcp", "169.254.169.254:80")
	try("tcp", "metadata.google.internal:80")
	try("tcp", "[fd00:ec2::254]:80")
}
)");
  const auto request_ms = ms_since(started);
  const std::string out = string_member(r, "stdout");
  INFO("program output:\n" << out << "\nstderr:\n" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "ok");
  const auto lines = lines_of(out);
  CHECK(lines.size() == 6);
  for (const auto& line : lines) {
    CAPTURE(line);
    REQUIRE(line.starts_with("FAILED "));
    // Fast: refused or unreachable at once, never a hang until the dial timeout.
    const long ms = std::stol(line.substr(7));
    CHECK(ms < 2000);
  }
  CHECK(int_member(r, "run_ms") < 10000);
  CHECK(request_ms < 120000);
  CHECK_FALSE(host_service.has_pending_connection());

  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

namespace {

// Shell lines that try to outlive the call; MARKER is replaced, $PIDFILE is set by the program.
struct Escape {
  const char* name;
  const char* script;
};

constexpr Escape kEscapes[] = {
    {"a setsid double fork",
     "(setsid sh -c 'echo $$ > \"$PIDFILE\"; sleep 300; : MARKER' </dev/null >/dev/null 2>&1 &) &"},
    {"nohup sleep 300 &", "nohup sleep 300 & echo $! > \"$PIDFILE\""},
};

// The Go that runs `script` with the marker in its environment, waits until the escapee has
// written its pid, then lingers 1.5 s so the host can see it while the call runs.
std::string escape_go(const std::string& script, const std::string& marker) {
  return R"(
	pidfile := "/tmp/escapee-)" + marker + R"(.pid"
	cmd := exec.Command("/bin/sh", "-c", )" + go_quote(script) + R"()
	cmd.Env = append(os.Environ(), "KG_HOSTILE_MARKER=)" + marker + R"(", "PIDFILE="+pidfile)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("starting the escapee: %w", err)
	}
	for i := 0; i < 500; i++ {
		if data, err := os.ReadFile(pidfile); err == nil && len(data) > 0 {
			time.Sleep(1500 * time.Millisecond)
			return "escapee " + strings.TrimSpace(string(data)) + " started", nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "", fmt.Errorf("the escapee never wrote %s", pidfile)
)";
}

std::string escape_program(const std::string& script, const std::string& marker) {
  return R"(package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

func escape() (string, error) {)" + escape_go(script, marker) + R"(}

func main() {
	message, err := escape()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(message)
}
)";
}

std::string escape_snippet(const std::string& script, const std::string& marker) {
  return R"(package snippet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

func run(ctx context.Context) (any, error) {)" + escape_go(script, marker) + R"(}
)";
}

std::string replace_marker(std::string script, const std::string& marker) {
  const auto at = script.find("MARKER");
  if (at != std::string::npos) script.replace(at, 6, marker);
  return script;
}

}  // namespace

TEST_CASE("hostile escape: processes that try to outlive the call are gone when it returns") {
  HostileDaemon daemon;
  daemon.start();
  // A session of the caller's: its sandbox stays up after each call, so what ends the escapees
  // is the sandbox's own clean-up, not the sandbox going away.
  const auto session = daemon->open_session();
  for (const auto& escape : kEscapes) {
    for (const bool snippet : {false, true}) {
      const std::string marker = unique_marker("kg-escapee-");
      const std::string script = replace_marker(escape.script, marker);
      INFO(escape.name << (snippet ? " from a snippet" : " from a whole program") << ", marker "
                       << marker);
      const std::string source =
          snippet ? escape_snippet(script, marker) : escape_program(script, marker);
      MarkerWatch watch(marker);
      const auto started = Clock::now();
      const auto r = daemon->execute(session, source);
      const auto request_ms = ms_since(started);
      const bool seen_during_call = watch.stop();
      const auto survivors = host_processes_with_marker(marker);
      const auto late_survivors = surviving_processes_with_marker(marker);
      INFO("result: stdout=" << string_member(r, "stdout") << " stderr=" << string_member(r, "stderr"));
      CHECK(string_member(r, "status") == "ok");
      CHECK(int_member(r, "exit_code") == 0);
      if (snippet) {
        REQUIRE(r.HasMember("result"));
        CHECK(string_member(r["result"], "kind") == "ok");
        CHECK(string_member(r["result"], "value").find("started") != std::string::npos);
      } else {
        CHECK(string_member(r, "stdout").find("started") != std::string::npos);
      }
      // The escapee existed on the host while the call ran (so the scan can see one) ...
      CHECK(seen_during_call);
      // ... and nothing carrying the marker is alive once the call has returned.
      CHECK_MESSAGE(survivors.empty(), survivors.size() << " process(es) outlived the call");
      CHECK_MESSAGE(late_survivors.empty(), late_survivors.size() << " still alive 2 s later");
      // The escapee holding stdout (nohup) must not hold the call up.
      CHECK(int_member(r, "run_ms") < 10000);
      CHECK(request_ms < 180000);
      check_call_recorded(daemon.fixture(), r, CallScope::in_session);
    }
  }
  const auto closed = daemon->del("/v1/sessions/" + session);
  CHECK(closed.status == 200);
  {
    const StateDatabase db(daemon.fixture());
    const auto row = db.session(session);
    REQUIRE(row.has_value());
    CHECK(row->state == "closed");
    CHECK(db.calls_of_session(session).size() == std::size(kEscapes) * 2);
  }
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile escape: sleeping past timeout_ms ends in status timeout, quickly, with nothing left") {
  HostileDaemon daemon;
  daemon.start();
  const std::string marker = unique_marker("kg-sleeper-");
  MarkerWatch watch(marker);
  const auto started = Clock::now();
  const auto r = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	child := exec.Command("/bin/sh", "-c", "sleep 300; : )" + marker + R"(")
	child.Env = append(os.Environ(), "KG_HOSTILE_MARKER=)" + marker + R"(")
	if err := child.Start(); err != nil {
		panic(err)
	}
	fmt.Println("sleeping for a minute")
	time.Sleep(60 * time.Second)
	fmt.Println("woke up: the timeout did not work")
}
)", R"("timeout_ms": 1000)");
  const auto request_ms = ms_since(started);
  const bool seen_during_call = watch.stop();
  INFO("result: stdout=" << string_member(r, "stdout") << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "timeout");
  CHECK(string_member(r, "phase") == "run");
  CHECK(r["is_error"].GetBool());
  CHECK(string_member(r, "stdout").find("woke up") == std::string::npos);
  const auto run_ms = int_member(r, "run_ms");
  CHECK(run_ms >= 900);
  CHECK(run_ms < 6000);  // killed near the 1 s limit, not after the 60 s sleep
  CHECK(request_ms < 120000);
  CHECK(seen_during_call);
  const auto survivors = surviving_processes_with_marker(marker);
  CHECK_MESSAGE(survivors.empty(), survivors.size() << " process(es) outlived the timeout");
  CHECK(surviving_sandbox_processes(daemon.fixture()).empty());  // the one-shot session's sandbox is gone too

  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile escape: a CPU spin ends in status timeout") {
  HostileDaemon daemon;
  daemon.start();
  const auto r = execute_once(daemon.fixture(), R"(package main

import "fmt"

func spin() {
	n := 0
	for {
		n++
	}
}

func main() {
	fmt.Println("spinning")
	go spin()
	spin()
}
)", R"("timeout_ms": 1500)");
  INFO("result: stdout=" << string_member(r, "stdout") << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "timeout");
  CHECK(string_member(r, "phase") == "run");
  CHECK(r["is_error"].GetBool());
  CHECK(string_member(r, "stdout") == "spinning\n");
  const auto run_ms = int_member(r, "run_ms");
  CHECK(run_ms >= 1400);
  CHECK(run_ms < 7000);
  CHECK(surviving_sandbox_processes(daemon.fixture()).empty());

  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile escape: 128 MiB on stdout is cut to the limit, marked, and the daemon stays small") {
  HostileDaemon daemon;
  daemon.start();
  const auto before = memory_use(daemon->pid());
  const auto started = Clock::now();
  const auto r = execute_once(daemon.fixture(), R"(package main

import (
	"bytes"
	"fmt"
	"os"
)

func main() {
	line := []byte("flood 0123456789abcdefghijklmnopqrstuvwxyz 0123456789abcdefghijklmnopqrstuv\n")
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	written := 0
	for written < 128<<20 {
		n, err := os.Stdout.Write(chunk)
		written += n
		if err != nil {
			fmt.Fprintln(os.Stderr, "write failed after", written, "bytes:", err)
			os.Exit(3)
		}
	}
	fmt.Fprintln(os.Stderr, "flood done:", written, "bytes")
}
)");
  const auto request_ms = ms_since(started);
  const auto after = memory_use(daemon->pid());
  const std::string out = string_member(r, "stdout");
  INFO("stderr: " << string_member(r, "stderr") << "; stdout head: " << out.substr(0, 200)
                  << "; daemon KiB before rss=" << before.rss_kib << " peak=" << before.peak_kib
                  << ", after rss=" << after.rss_kib << " peak=" << after.peak_kib);
  CHECK(string_member(r, "status") == "output_limit");
  CHECK(int_member(r, "exit_code") == 0);
  CHECK(r["is_error"].GetBool());
  CHECK(string_member(r, "stderr").starts_with("flood done: "));
  // Cut: head and tail of what the sandbox kept (the tail: the end of what was printed), far
  // below what was written.
  CHECK(out.starts_with("flood 0123456789"));
  CHECK(out.find("bytes elided]") != std::string::npos);
  CHECK(out.ends_with("0123456789abcdefghijklmnopqrstuv\n"));
  CHECK(out.size() < 64 * 1024);
  bool warned = false;
  if (r.HasMember("warnings")) {
    for (const auto& w : r["warnings"].GetArray()) {
      if (std::string(w.GetString()).find("stdout went over the") != std::string::npos) warned = true;
    }
  }
  CHECK(warned);
  CHECK(request_ms < 180000);
  // The daemon never held the flood: its peak resident size grew by far less than 128 MiB.
  REQUIRE(before.peak_kib > 0);
  CHECK(after.peak_kib < before.peak_kib + 64 * 1024);
  CHECK(after.rss_kib < 256 * 1024);

  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  {
    const StateDatabase db(daemon.fixture());
    CHECK(db.integer("SELECT output_bytes FROM calls WHERE id = " +
                   std::to_string(int_member(r, "call_id"))) == static_cast<std::int64_t>(
                                                                    out.size() + string_member(r, "stderr").size()));
  }
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}
