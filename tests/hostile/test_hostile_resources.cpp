// Hostile programs against the sandbox's own walls: resource limits (a fork bomb, a memory bomb,
// filling the disk, a CPU spin under a CPU-time limit) and the kernel surface the seccomp filter
// and the dropped privileges take away. Each ends with the daemon healthy and the record right.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <fstream>
#include <string>

#include "hostile_checks.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

// Bytes of regular files under a host folder (the sandboxes' folders stay small: their
// writable parts are tmpfs inside the sandbox, not host disk).
std::uintmax_t bytes_under(const std::string& dir) {
  std::uintmax_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(
           dir, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

// A service on the host's 127.0.0.1 that never accepts: a connection that got through would wait
// in its backlog.
class HostLoopbackService {
 public:
  HostLoopbackService() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t size = sizeof address;
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
    port_ = ntohs(address.sin_port);
  }
  ~HostLoopbackService() { ::close(fd_); }
  int port() const { return port_; }
  bool reached() const {
    pollfd entry{fd_, POLLIN, 0};
    return ::poll(&entry, 1, 0) > 0;
  }

 private:
  int fd_;
  int port_ = 0;
};

}  // namespace

TEST_CASE("hostile resources: with network = egress the host, metadata and private ranges stay out of reach") {
  HostileDaemon daemon;
  std::ofstream(daemon->config_path(), std::ios::app) << "[sandbox]\nnetwork = egress\n";
  daemon.start();
  HostLoopbackService host_service;
  const std::string port = std::to_string(host_service.port());
  const auto r = execute_once(daemon.fixture(), R"go(package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

func main() {
	resolv, _ := os.ReadFile("/etc/resolv.conf")
	fmt.Println("resolv:", strings.TrimSpace(string(resolv)))
	for _, address := range []string{
		"10.0.2.2:)go" + port + R"go(",  // slirp's alias of the host's loopback
		"169.254.169.254:80", "10.1.2.3:80", "172.16.0.1:80", "192.168.1.1:80", "100.64.0.1:80",
	} {
		conn, err := net.DialTimeout("tcp", address, 5*time.Second)
		if err == nil {
			conn.Close()
			fmt.Println(address, "connected")
			continue
		}
		fmt.Println(address, err)
	}
}
)go");
  const std::string out = string_member(r, "stdout");
  INFO("stdout=" << out << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "ok");
  CHECK(out.find("resolv: nameserver 10.0.2.3") != std::string::npos);
  CHECK(out.find("connected") == std::string::npos);
  for (const std::string& address : {"10.0.2.2:" + port, std::string("169.254.169.254:80"),
                                    std::string("10.1.2.3:80"), std::string("172.16.0.1:80"),
                                    std::string("192.168.1.1:80"), std::string("100.64.0.1:80")}) {
    CAPTURE(address);
    CHECK(out.find(address + ": connect: permission denied") != std::string::npos);
  }
  CHECK_FALSE(host_service.reached());
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
}

TEST_CASE("hostile resources: a fork bomb hits the pids limit and leaves nothing behind") {
  HostileDaemon daemon;
  daemon.start();
  const std::string marker = unique_marker("kg-forkbomb-");
  const auto r = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
	"os/exec"
)

func main() {
	env := append(os.Environ(), "KG_HOSTILE_MARKER=)" + marker + R"(")
	started := 0
	var refused error
	for i := 0; i < 1000; i++ {
		cmd := exec.Command("/bin/sleep", "300")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			refused = err
			break
		}
		started++
	}
	fmt.Printf("started=%d refused=%v\n", started, refused)
	// And the classic: a shell that forks itself until the kernel says no.
	bomb := exec.Command("/bin/sh", "-c", "b() { b | b & }; b; sleep 2")
	bomb.Env = env
	fmt.Println("bomb:", bomb.Run())
}
)", R"("timeout_ms": 8000, "limits": {"pids": 64})");
  const std::string out = string_member(r, "stdout");
  const std::string err = string_member(r, "stderr");
  INFO("stdout=" << out << " stderr=" << err);
  // Either the Go program saw fork refused below the limit, or the runtime itself could not get
  // a thread: both are the limit at work.
  const bool refused_fork = out.find("refused=fork/exec /bin/sleep: resource temporarily unavailable") != std::string::npos;
  const bool refused_thread = err.find("failed to create new OS thread") != std::string::npos;
  CHECK((refused_fork || refused_thread));
  if (refused_fork) {
    const auto at = out.find("started=");
    const int started = std::stoi(out.substr(at + 8));
    CHECK(started < 64);
  }
  const auto survivors = surviving_processes_with_marker(marker, std::chrono::seconds(5));
  CHECK_MESSAGE(survivors.empty(), survivors.size() << " fork bomb process(es) outlived the call");
  CHECK(surviving_sandbox_processes(daemon.fixture()).empty());
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile resources: a memory bomb is OOM-killed and reported as status oom") {
  HostileDaemon daemon;
  daemon.start();
  const auto r = execute_once(daemon.fixture(), R"(package main

import "fmt"

func main() {
	var hold [][]byte
	for i := 1; ; i++ {
		chunk := make([]byte, 16<<20)
		for j := range chunk {
			chunk[j] = byte(j)
		}
		hold = append(hold, chunk)
		if i%4 == 0 {
			fmt.Println("holding MiB:", i*16)
		}
	}
}
)", R"("limits": {"memory_bytes": 268435456})");
  INFO("stdout=" << string_member(r, "stdout") << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "oom");
  CHECK(string_member(r, "phase") == "run");
  CHECK(int_member(r, "signal") == 9);
  CHECK(r["is_error"].GetBool());
  // It got somewhere near the limit, never past it.
  CHECK(string_member(r, "stdout").find("holding MiB: 64") != std::string::npos);
  CHECK(string_member(r, "stdout").find("holding MiB: 320") == std::string::npos);
  bool warned = false;
  if (r.HasMember("warnings")) {
    for (const auto& w : r["warnings"].GetArray()) {
      warned = warned || std::string(w.GetString()).find("out of memory") != std::string::npos;
    }
  }
  CHECK(warned);
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

// The sandbox server starts commands through a launcher that lives in the commands' cgroup
// (sandbox/server/command_launcher.hpp). A program can kill it; the next call must still run
// inside that cgroup, under its limits, and the server must stay outside it.
TEST_CASE("hostile resources: killing the command launcher does not free the next call from its limits") {
  HostileDaemon daemon;
  daemon.start();
  const auto session = daemon->open_session();
  const auto killer = daemon->execute(session, R"(package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func read(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

func main() {
	mine := read("/proc/self/cgroup")
	child, err := exec.Command("cat", "/proc/self/cgroup").Output()
	if err != nil {
		panic(err)
	}
	fmt.Println("descendant in mine:", string(child) == mine)
	fmt.Println("server apart:", read("/proc/1/cgroup") != mine)
	// The launcher is a fork of the server (pid 1): same command line, a child of pid 1.
	server := read("/proc/1/cmdline")
	killed := 0
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range paths {
		pid := 0
		fmt.Sscanf(strings.TrimPrefix(path, "/proc/"), "%d", &pid)
		if pid > 1 && pid != os.Getpid() && read(path) == server {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	fmt.Println("launchers killed:", killed)
}
)");
  INFO("stdout=" << string_member(killer, "stdout") << " stderr=" << string_member(killer, "stderr"));
  CHECK(string_member(killer, "status") == "ok");
  CHECK(string_member(killer, "stdout") ==
        "descendant in mine: true\nserver apart: true\nlaunchers killed: 1\n");

  const auto bomb = daemon->execute(session, R"(package main

import "fmt"

func main() {
	var hold [][]byte
	for i := 1; ; i++ {
		chunk := make([]byte, 16<<20)
		for j := range chunk {
			chunk[j] = byte(j)
		}
		hold = append(hold, chunk)
		if i%4 == 0 {
			fmt.Println("holding MiB:", i*16)
		}
	}
}
)", R"("limits": {"memory_bytes": 268435456})");
  INFO("stdout=" << string_member(bomb, "stdout") << " stderr=" << string_member(bomb, "stderr"));
  CHECK(string_member(bomb, "status") == "oom");
  CHECK(string_member(bomb, "stdout").find("holding MiB: 320") == std::string::npos);
  check_call_recorded(daemon.fixture(), bomb, CallScope::in_session);
  CHECK(daemon->del("/v1/sessions/" + session).status == 200);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile resources: filling the disk stops at the sandbox's own bounds, not the host's") {
  HostileDaemon daemon;
  daemon.start();
  const auto r = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
)

// Writes 1 MiB blocks to path until a write fails; returns MiB written and the error.
func fill(path string) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	block := make([]byte, 1<<20)
	for n := 0; ; n++ {
		if _, err := f.Write(block); err != nil {
			return n, err
		}
	}
}

func main() {
	// One file: the file size limit.
	n, err := fill("/tmp/one-big-file")
	fmt.Printf("file: %d MiB, %v\n", n, err)
	os.Remove("/tmp/one-big-file")
	// Many files, each under it: the folder's size.
	total := 0
	for i := 0; ; i++ {
		n, err := fill(fmt.Sprintf("/app/fill-%d", i))
		total += n
		if err != nil && n < 16 {
			fmt.Printf("folder: %d MiB, %v\n", total, err)
			break
		}
	}
}
)", R"("limits": {"file_size_bytes": 16777216})");
  const std::string out = string_member(r, "stdout");
  INFO("stdout=" << out << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "ok");
  CHECK(out.find("file: 16 MiB, write /tmp/one-big-file: file too large") != std::string::npos);
  const auto folder = out.find("folder: ");
  REQUIRE(folder != std::string::npos);
  const int folder_mib = std::stoi(out.substr(folder + 8));
  CHECK(folder_mib >= 1000);  // disk_bytes defaults to 1 GiB per folder
  CHECK(folder_mib <= 1024);
  CHECK(out.find("no space left on device") != std::string::npos);
  // Nothing of it landed on the host's disk.
  CHECK(bytes_under(daemon->state_dir() + "/sandboxes") < (4u << 20));
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile resources: a CPU spin under a CPU-time limit is stopped as a timeout") {
  HostileDaemon daemon;
  daemon.start();
  const auto r = execute_once(daemon.fixture(), R"(package main

func main() {
	n := 0
	for {
		n++
	}
}
)", R"("timeout_ms": 20000, "limits": {"cpu_seconds": 1})");
  INFO("stdout=" << string_member(r, "stdout") << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "timeout");
  CHECK(int_member(r, "run_ms") < 10000);  // the CPU limit, long before the 20 s wall clock
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);

  // A call may only lower the daemon's limits, and must name the ones it knows.
  const std::map<std::string, std::string> hello = {{"main.go", "package main\n\nfunc main() {}\n"}};
  const auto too_much = daemon->post(
      "/v1/execute", execute_body(hello, R"("limits": {"memory_bytes": 1099511627776})"));
  CHECK(too_much.status == 400);
  CHECK(api_error(too_much).message.find("limits.memory_bytes must be from 1 to") != std::string::npos);
  const auto unknown = daemon->post("/v1/execute", execute_body(hello, R"("limits": {"gpus": 1})"));
  CHECK(unknown.status == 400);
  CHECK(api_error(unknown).message.find("unknown key \"gpus\"") != std::string::npos);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile resources: namespaces, mounts, ptrace, bpf and friends are refused; no privileges") {
  HostileDaemon daemon;
  // The fixture's folder is private (mkdtemp); let the sandbox's host user pass through it so the
  // daemon can map the sandbox user to that unprivileged uid, as an install in /var/lib does.
  ::chmod(daemon->dir().c_str(), 0711);
  daemon.start();
  // While the program runs, the host sees its processes' real uid.
  const std::string marker = unique_marker("kg-uid-");
  std::set<std::string> host_uids;
  std::atomic<bool> call_done{false};
  std::thread watcher([&] {
    while (!call_done) {
      for (const pid_t pid : host_processes_with_marker(marker)) {
        std::ifstream status("/proc/" + std::to_string(pid) + "/status");
        std::string line;
        while (std::getline(status, line)) {
          if (line.starts_with("Uid:")) host_uids.insert(line);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const auto r = execute_once(daemon.fixture(), R"go(package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

func report(name string, errno syscall.Errno) {
	if errno == 0 {
		fmt.Printf("%s: allowed\n", name)
	} else {
		fmt.Printf("%s: %v\n", name, errno)
	}
}

func raw(number uintptr, a ...uintptr) syscall.Errno {
	args := append(a, 0, 0, 0, 0, 0, 0)
	_, _, errno := syscall.RawSyscall6(number, args[0], args[1], args[2], args[3], args[4], args[5])
	return errno
}

func main() {
	report("unshare(CLONE_NEWUSER)", raw(syscall.SYS_UNSHARE, syscall.CLONE_NEWUSER))
	report("unshare(CLONE_NEWNET)", raw(syscall.SYS_UNSHARE, syscall.CLONE_NEWNET))
	report("mount", raw(syscall.SYS_MOUNT, 0, 0, 0, 0, 0))
	report("ptrace(PTRACE_ATTACH, 1)", raw(syscall.SYS_PTRACE, syscall.PTRACE_ATTACH, 1))
	report("bpf", raw(321))
	report("keyctl", raw(250))
	report("perf_event_open", raw(298))
	report("userfaultfd", raw(323))
	report("kexec_load", raw(246))
	report("init_module", raw(175))
	report("setns", raw(308))
	report("clone3", raw(435))
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	fmt.Println("clone(CLONE_NEWNS):", cmd.Run())
	fmt.Println("plain fork+exec:", exec.Command("/bin/true").Run())
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		for _, key := range []string{"CapEff:", "CapPrm:", "CapBnd:", "NoNewPrivs:", "Seccomp:"} {
			if strings.HasPrefix(line, key) {
				fmt.Println(strings.Join(strings.Fields(line), " "))
			}
		}
	}
	sleeper := exec.Command("/bin/sleep", "1")
	sleeper.Env = []string{"KG_HOSTILE_MARKER=)go" + marker + R"go("}
	fmt.Println("sleeper:", sleeper.Run())
	err := os.WriteFile("/opt/kode-gopher/gocache-base/poison", []byte("x"), 0o644)
	fmt.Println("write base cache:", err)
}
)go");
  call_done = true;
  watcher.join();
  const std::string out = string_member(r, "stdout");
  INFO("stdout=" << out << " stderr=" << string_member(r, "stderr"));
  CHECK(string_member(r, "status") == "ok");
  CHECK(out.find("sleeper: <nil>\n") != std::string::npos);
  // Running as root, the daemon maps the sandbox's user to an unprivileged host uid (real,
  // effective, saved and file system uid all 65534), never to root.
  REQUIRE(host_uids.size() == 1);
  CHECK(*host_uids.begin() == (::geteuid() == 0 ? "Uid:\t65534\t65534\t65534\t65534"
                                                : "Uid:\t" + std::to_string(::geteuid()) + "\t" +
                                                      std::to_string(::geteuid()) + "\t" +
                                                      std::to_string(::geteuid()) + "\t" +
                                                      std::to_string(::geteuid())));
  for (const char* refused : {"unshare(CLONE_NEWUSER)", "unshare(CLONE_NEWNET)", "mount",
                              "ptrace(PTRACE_ATTACH, 1)", "bpf", "keyctl", "perf_event_open",
                              "userfaultfd", "kexec_load", "init_module", "setns"}) {
    CAPTURE(refused);
    CHECK(out.find(std::string(refused) + ": operation not permitted\n") != std::string::npos);
  }
  CHECK(out.find("clone3: function not implemented\n") != std::string::npos);
  CHECK(out.find("clone(CLONE_NEWNS): fork/exec /bin/true: operation not permitted\n") != std::string::npos);
  CHECK(out.find("plain fork+exec: <nil>\n") != std::string::npos);
  CHECK(out.find("CapEff: 0000000000000000\n") != std::string::npos);
  CHECK(out.find("CapPrm: 0000000000000000\n") != std::string::npos);
  CHECK(out.find("CapBnd: 0000000000000000\n") != std::string::npos);
  CHECK(out.find("NoNewPrivs: 1\n") != std::string::npos);
  CHECK(out.find("Seccomp: 2\n") != std::string::npos);
  CHECK(out.find("write base cache: open /opt/kode-gopher/gocache-base/poison: read-only file system") != std::string::npos);
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
}
