// The sandbox boundary within one session: what user code can reach of the server that reports
// on it, of the daemon's environment and of the host's disk, and what a call leaves behind. Each
// case is an attack that worked before the server ran as a non-dumpable pid 1 with commands in a
// cgroup of their own (docs/security.md).
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "hostile_checks.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

std::string stdout_of(const rapidjson::Value& result) { return string_member(result, "stdout"); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("hostile boundary: nothing of the daemon's environment or host paths reaches the sandbox") {
  const std::string token = unique_marker("kg-env-token-");
  ::setenv("KG_TEST_SECRET_TOKEN", token.c_str(), 1);
  HostileDaemon daemon;
  daemon.start();
  ::unsetenv("KG_TEST_SECRET_TOKEN");
  // Every process's environment and command line the program can read, and its mount table.
  const auto result = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	paths, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range paths {
		for _, f := range []string{"environ", "cmdline"} {
			if b, err := os.ReadFile(p + "/" + f); err == nil {
				fmt.Printf("%s/%s: %q\n", p, f, b)
			}
		}
	}
	for _, e := range os.Environ() {
		fmt.Println("env:", e)
	}
}
)");
  const std::string out = stdout_of(result);
  INFO(out);
  CHECK(string_member(result, "status") == "ok");
  CHECK(out.find(token) == std::string::npos);
  CHECK(out.find(daemon.fake_home()) == std::string::npos);
  CHECK(out.find(daemon->dir()) == std::string::npos);  // the state dir, the socket
  CHECK(out.find("GOPROXY=https") == std::string::npos);
  CHECK(out.find("/proc/1/environ") == std::string::npos);  // pid 1 (the server) is not readable
  check_daemon_healthy(daemon.fixture());
}

TEST_CASE("hostile boundary: user code cannot read or write the server's memory, fds or files") {
  HostileDaemon daemon;
  daemon.start();
  const auto result = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	self := os.Getpid()
	paths, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range paths {
		pid, _ := strconv.Atoi(filepath.Base(p))
		if pid == self || pid == os.Getppid() {
			continue
		}
		for _, f := range []string{"mem", "environ", "maps", "fd", "root/.", "cwd/.", "oom_score_adj"} {
			flag := os.O_RDONLY
			if f == "mem" || f == "oom_score_adj" {
				flag = os.O_RDWR
			}
			if file, err := os.OpenFile(p+"/"+f, flag, 0); err == nil {
				fmt.Printf("opened %s/%s\n", p, f)
				file.Close()
			}
		}
	}
	fmt.Println("done")
}
)");
  INFO(stdout_of(result));
  // The program's parent is its shell; every other process (the server, pid 1) is out of reach.
  CHECK(stdout_of(result) == "done\n");
  check_daemon_healthy(daemon.fixture());
}

TEST_CASE("hostile boundary: processes that fork faster than a scan do not outlive their call") {
  HostileDaemon daemon;
  daemon.start();
  const std::string marker = unique_marker("kg-walker-");
  const std::string session = daemon->open_session();
  // Eight walkers: each starts a copy of itself in a new session and exits at once.
  const auto started = daemon->execute(session, R"(package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

const marker = ")" + marker + R"("

// A raw fork loop: the child makes itself a session leader and forks again, the parent exits
// at once, so at any moment there is a new pid and the old one is gone. Raw system calls only:
// no allocation, nothing of the Go runtime, in the forked child.
func walk() {
	for {
		pid, _, errno := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0)
		if errno != 0 {
			continue
		}
		if pid != 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		syscall.RawSyscall(syscall.SYS_SETSID, 0, 0, 0)
	}
}

func main() {
	if len(os.Args) > 1 {
		walk()
	}
	for i := 0; i < 8; i++ {
		cmd := exec.Command("/proc/self/exe", "walk", marker)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Start()
	}
	time.Sleep(200 * time.Millisecond)
	fmt.Println("started")
}
)");
  REQUIRE(stdout_of(started) == "started\n");
  // The next call of the session sees no process but itself and its server, again and again
  // (a walker's pid lives microseconds, so names are not checked: any other pid counts). The
  // server's command launcher (sandbox/server/command_launcher.hpp) is part of the server: a
  // fork of pid 1 with its command line; exactly one such pid across all the scans.
  const auto looked = daemon->execute(session, R"(package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	server, _ := os.ReadFile("/proc/1/cmdline")
	others, launchers := map[int]bool{}, map[int]bool{}
	for i := 0; i < 50; i++ {
		paths, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range paths {
			pid, _ := strconv.Atoi(filepath.Base(p))
			if pid == 1 || pid == os.Getpid() || pid == os.Getppid() {
				continue
			}
			cmdline, _ := os.ReadFile(p + "/cmdline")
			stat, _ := os.ReadFile(p + "/stat")
			fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
			if string(cmdline) == string(server) && len(fields) > 1 && fields[1] == "1" {
				launchers[pid] = true
			} else {
				others[pid] = true
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println("others:", len(others), "launchers:", len(launchers))
}
)");
  INFO(stdout_of(looked) << string_member(looked, "stderr"));
  CHECK(stdout_of(looked) == "others: 0 launchers: 1\n");
  daemon->del("/v1/sessions/" + session);
  CHECK(daemon->sandbox_processes().empty());  // found by cgroup, however short-lived
  check_daemon_healthy(daemon.fixture());
}

TEST_CASE("hostile boundary: every writable place is a bounded tmpfs; no host folder is writable") {
  HostileDaemon daemon;
  daemon.start();
  const auto result = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
)

func main() {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	fmt.Print(string(b))
	if f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		fmt.Println("WROTE /dev/ptmx: a pseudo-terminal")
		f.Close()
	}
	for _, p := range []string{"/x", "/dev/x", "/run/x", "/run/kode-gopher/x", "/opt/kode-gopher/x"} {
		if os.WriteFile(p, []byte("x"), 0644) == nil {
			fmt.Println("WROTE", p)
		}
	}
}
)");
  const std::string out = stdout_of(result);
  INFO(out);
  CHECK(out.find("WROTE") == std::string::npos);
  // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPER_OPTIONS
  for (const auto& line : lines_of(out)) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream before(line.substr(0, dash)), after(line.substr(dash + 3));
    std::string id, parent, device, root, mount_point, options, type, source, super_options;
    before >> id >> parent >> device >> root >> mount_point >> options;
    after >> type >> source >> super_options;
    const bool writable = options.starts_with("rw");
    if (!writable || type == "proc" || type == "devpts" || type == "devtmpfs") continue;
    INFO("writable mount: " << line);
    CHECK(type == "tmpfs");
    CHECK(super_options.find("size=") != std::string::npos);
  }
  check_daemon_healthy(daemon.fixture());
}

TEST_CASE("hostile boundary: an out-of-memory program is the one killed, even after aiming the OOM killer") {
  HostileDaemon daemon;
  daemon.start();
  const std::string session = daemon->open_session();
  const auto result = daemon->execute(session, R"(package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	os.WriteFile("/proc/self/oom_score_adj", []byte("0"), 0)
	self := fmt.Sprintf("/proc/%d/oom_score_adj", os.Getpid())
	paths, _ := filepath.Glob("/proc/[0-9]*/oom_score_adj")
	for _, p := range paths {
		if p != self {
			os.WriteFile(p, []byte("1000"), 0)
		}
	}
	var hoard [][]byte
	for i := 0; i < 64; i++ {
		chunk := make([]byte, 16<<20)
		for j := range chunk {
			chunk[j] = 1
		}
		hoard = append(hoard, chunk)
	}
	fmt.Println(len(hoard))
}
)", R"("limits": {"memory_bytes": 268435456})");
  INFO(stdout_of(result) << string_member(result, "stderr"));
  CHECK(string_member(result, "status") == "oom");
  // The session's sandbox survived: the next call runs in it.
  const auto next = daemon->execute(session, "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"still here\") }\n");
  CHECK(stdout_of(next) == "still here\n");
  daemon->del("/v1/sessions/" + session);
  check_daemon_healthy(daemon.fixture());
}

TEST_CASE("hostile boundary: a program cannot reach its own sandbox's server") {
  HostileDaemon daemon;
  daemon.start();
  const auto result = execute_once(daemon.fixture(), R"(package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	candidates := []string{"/run/kode-gopher/sandbox.sock"}
	if f, err := os.Open("/proc/net/unix"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			fields := strings.Fields(s.Text())
			if len(fields) >= 8 && strings.HasPrefix(fields[7], "/") {
				candidates = append(candidates, fields[7])
			}
		}
	}
	socks, _ := filepath.Glob("/proc/1/fd/*")
	candidates = append(candidates, socks...)
	for _, c := range candidates {
		if conn, err := net.DialTimeout("unix", c, time.Second); err == nil {
			fmt.Println("CONNECTED", c)
			conn.Close()
		}
	}
	fmt.Println("done")
}
)");
  INFO(stdout_of(result));
  CHECK(stdout_of(result) == "done\n");
  check_daemon_healthy(daemon.fixture());
}
