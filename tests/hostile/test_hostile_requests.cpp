// Hostile requests: path tricks in file maps, hostile tars sent straight to the sandbox server's
// /upload-tar, a 100 MiB body, deeply nested JSON, invalid UTF-8 coming in and going out, and 20
// sessions at once. Each test checks the refusal (status and a message that names the problem),
// that nothing outside the target was touched, that the server still serves, and that SQLite
// recorded exactly what happened.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <poll.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "hostile_checks.hpp"
#include "in_memory_tar.hpp"
#include "unix_http_client.hpp"
#include "../support/test_json.hpp"

using namespace kg::test;
using namespace kg::test::hostile;
namespace fs = std::filesystem;
using kg::sandbox::testing::InMemoryTar;

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr const char* kHello = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n";

// Everything under `root` except the entries named in `skip` at its top: path -> content (or a
// type tag for directories and links). Two equal snapshots mean nothing there was touched.
std::map<std::string, std::string> snapshot(const fs::path& root, const std::vector<std::string>& skip) {
  std::map<std::string, std::string> seen;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const auto relative = fs::relative(it->path(), root).string();
    const auto top = relative.substr(0, relative.find('/'));
    if (std::find(skip.begin(), skip.end(), top) != skip.end()) {
      if (it->is_directory() && relative == top) it.disable_recursion_pending();
      continue;
    }
    const auto status = fs::symlink_status(it->path());
    if (fs::is_symlink(status)) seen[relative] = "symlink -> " + fs::read_symlink(it->path()).string();
    else if (fs::is_directory(status)) seen[relative] = "directory";
    else seen[relative] = read_whole(it->path());
  }
  return seen;
}

// Names of every entry under `root` (recursively) that contain `marker`.
std::vector<std::string> entries_named_with(const fs::path& root, const std::string& marker) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->path().filename().string().find(marker) != std::string::npos) {
      found.push_back(it->path().string());
    }
  }
  return found;
}

std::vector<std::string> top_level_entries_named_with(const fs::path& dir, const std::string& marker) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().find(marker) != std::string::npos) {
      found.push_back(entry.path().string());
    }
  }
  return found;
}

struct RawAnswer {
  int status = 0;
  std::string body;
  std::uint64_t sent = 0;  // body bytes sent before the server answered
};

// POSTs a body of `total` bytes produced by `piece(offset)` over a raw socket, with a
// Content-Length (or chunked), and stops sending as soon as the server answers or closes: a
// server that refuses early must not need the whole body, and its answer is still read.
RawAnswer post_raw(const std::string& socket_path, const std::string& target,
                   const std::string& content_type, std::uint64_t total, bool chunked,
                   const std::function<std::string(std::uint64_t)>& piece) {
  RawAnswer answer;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  std::string pending = "POST " + target + " HTTP/1.1\r\nHost: localhost\r\n"
                        "Content-Type: " + content_type + "\r\nConnection: close\r\n" +
                        (chunked ? std::string("Transfer-Encoding: chunked\r\n")
                                 : "Content-Length: " + std::to_string(total) + "\r\n") +
                        "\r\n";
  std::uint64_t produced = 0;
  bool body_done = false, sending = true;
  std::string received;
  const auto give_up = Clock::now() + std::chrono::minutes(2);
  while (Clock::now() < give_up) {
    if (sending && pending.empty() && !body_done) {
      if (produced < total) {
        std::string next = piece(produced);
        produced += next.size();
        if (chunked) {
          char size[32];
          std::snprintf(size, sizeof size, "%zx\r\n", next.size());
          pending = std::string(size) + next + "\r\n";
        } else {
          pending = std::move(next);
        }
        answer.sent = produced;
      } else {
        if (chunked) pending = "0\r\n\r\n";
        body_done = true;
      }
    }
    if (sending && pending.empty() && body_done) sending = false;
    pollfd entry{fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
    if (::poll(&entry, 1, 1000) <= 0) continue;
    if (entry.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buffer[64 * 1024];
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      if (got > 0) {
        received.append(buffer, static_cast<std::size_t>(got));
        sending = false;  // the server answered: stop feeding it
        continue;
      }
      if (got == 0 || (entry.revents & (POLLHUP | POLLERR))) break;
    }
    if (sending && (entry.revents & POLLOUT)) {
      const ssize_t put = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
      if (put < 0) {
        sending = false;  // EPIPE / ECONNRESET: the server closed; read what it said
        continue;
      }
      pending.erase(0, static_cast<std::size_t>(put));
    }
  }
  ::close(fd);
  const auto header_end = received.find("\r\n\r\n");
  if (received.starts_with("HTTP/1.1 ") && header_end != std::string::npos) {
    answer.status = std::stoi(received.substr(9, 3));
    answer.body = received.substr(header_end + 4);
  }
  return answer;
}

}  // namespace

// ---- File maps -------------------------------------------------------------------------------

TEST_CASE("hostile request: path tricks in the files map are refused with the bad path named") {
  HostileDaemon daemon;
  daemon.start();
  const std::string marker = unique_marker("kgpath");
  const std::string passwd_before = read_whole("/etc/passwd");
  struct Trick {
    std::string path;
    std::string expected;  // in the error message (and the recorded error)
  };
  const std::string long_segment = marker + std::string(300, 'a') + ".go";
  std::string long_path;
  while (long_path.size() < 5000) long_path += marker + "dir/";
  long_path += "x.go";
  const std::vector<Trick> tricks = {
      {"../x-" + marker + ".go", "\"../x-" + marker + ".go\""},
      {"/etc/passwd", "\"/etc/passwd\""},
      {"/tmp/x-" + marker + ".go", "\"/tmp/x-" + marker + ".go\""},
      {"a/../../b-" + marker + ".go", "\"a/../../b-" + marker + ".go\""},
      {"./x-" + marker + ".go", "\"./x-" + marker + ".go\""},
      {"sub/./x-" + marker + ".go", "\"sub/./x-" + marker + ".go\""},
      {"sub//x-" + marker + ".go", "\"sub//x-" + marker + ".go\""},
      {"..\\x-" + marker + ".go", "x-" + marker + ".go"},
      {"sub\\..\\..\\x-" + marker + ".go", "x-" + marker + ".go"},
      {std::string("x-") + marker + std::string(1, '\0') + "/../../evil.go", "NUL"},
      {"", "empty path"},
      {"kg_wrapper.go", "kg_wrapper.go"},
      // One segment longer than any file system's NAME_MAX (255).
      {long_segment, long_segment.substr(0, 40)},
  };
  std::int64_t newest = StateDatabase(daemon.fixture()).newest_call_id();
  for (const auto& trick : tricks) {
    CAPTURE(trick.path.substr(0, 80));
    const auto response = daemon->post(
        "/v1/execute", execute_body({{trick.path, "package main\n"}, {"main.go", kHello}}));
    INFO("answer: " << response.status << " " << response.body.substr(0, 400));
    CHECK(response.status == 400);
    if (response.status >= 400) {
      const auto error = api_error(response);
      CHECK(error.code == "invalid_input");
      CHECK_MESSAGE(error.message.find(trick.expected) != std::string::npos,
                    "the message does not name the bad path: " << error.message.substr(0, 300));
    }
    // Recorded as a refused call, in a one-shot session that is closed again.
    const std::int64_t call_id = StateDatabase(daemon.fixture()).newest_call_id();
    CHECK(call_id == newest + 1);
    if (call_id > newest) {
      check_call_refused(daemon.fixture(), call_id, trick.expected);
      newest = call_id;
    }
  }

  {
    // 5000 bytes of short segments: refused with the path named, or accepted and kept in /app
    // (no segment is too long and the tar extractor handles paths beyond PATH_MAX).
    const auto response = daemon->post(
        "/v1/execute", execute_body({{long_path, "package main\n"}, {"main.go", kHello}}));
    INFO("answer: " << response.status << " " << response.body.substr(0, 400));
    if (response.status == 400) {
      const auto error = api_error(response);
      CHECK(error.code == "invalid_input");
      CHECK(error.message.find(long_path.substr(0, 40)) != std::string::npos);
    } else {
      REQUIRE(response.status == 200);
      const auto r = daemon->json(response);
      CHECK(string_member(r, "status") == "ok");
      check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
    }
  }

  // The one spelling that is a legal relative path: .kode-gopher/result.json. It is accepted
  // and stays in /app, where the program itself could write it anyway; the call's own result
  // is what is reported.
  {
    const auto response = daemon->post(
        "/v1/execute",
        execute_body({{".kode-gopher/result.json", R"({"kind":"ok","value":"spoofed )" + marker + R"("})"},
                      {"main.go", R"(package main

import (
	"fmt"
	"os"
)

func main() {
	data, err := os.ReadFile("/app/.kode-gopher/result.json")
	fmt.Printf("inside /app: %v %s\n", err, data)
}
)"}}));
    INFO("answer: " << response.status << " " << response.body.substr(0, 600));
    if (response.status == 400) {
      const auto error = api_error(response);
      CHECK(error.code == "invalid_input");
      CHECK(error.message.find(".kode-gopher/result.json") != std::string::npos);
    } else {
      REQUIRE(response.status == 200);
      const auto r = daemon->json(response);
      CHECK(string_member(r, "status") == "ok");
      CHECK(string_member(r, "stdout").find("inside /app: <nil> {\"kind\":\"ok\"") == 0);
      check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
    }
  }

  // Nothing was written outside /app: no file carrying the marker anywhere the daemon keeps
  // things, in /tmp or at /, and /etc/passwd is what it was.
  CHECK(entries_named_with(daemon->dir(), marker).empty());
  CHECK(top_level_entries_named_with("/tmp", marker).empty());
  CHECK(top_level_entries_named_with("/", marker).empty());
  CHECK(read_whole("/etc/passwd") == passwd_before);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

// ---- The sandbox server's /upload-tar ----------------------------------------------------------

namespace {

// A real kode-gopher-sandbox process on a Unix socket in a scratch directory, with an upload cap
// of 64 KiB so that the limits are cheap to cross. It runs on the host, unsandboxed: the tests
// send it only uploads and reads, never /execute.
class SandboxServerProcess {
 public:
  static constexpr std::uint64_t kUploadCap = 64 * 1024;

  SandboxServerProcess() : scratch_(unique_temp_dir("kg-hostile-tar-")) {
    scratch_ = fs::canonical(scratch_).string();
    fs::create_directories(workdir());
    fs::create_directories(outside());
    std::ofstream(outside() / "secret.txt") << "do not touch\n";
    socket_path_ = scratch_ + "/sandbox.sock";
    const std::string binary = required_env("KG_SANDBOX_SERVER");
    const std::string listen = "unix:" + socket_path_;
    const std::string cap = std::to_string(kUploadCap);
    std::fflush(stdout);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const std::string log = scratch_ + "/server.log";
      if (std::freopen(log.c_str(), "a", stderr) == nullptr) ::_exit(126);
      ::execl(binary.c_str(), binary.c_str(), "--listen", listen.c_str(), "--workdir",
              workdir().c_str(), "--max-upload-bytes", cap.c_str(), nullptr);
      ::_exit(127);
    }
    REQUIRE(pid_ > 0);
    const kg::net::UnixHttpClient client(socket_path_);
    for (int tries = 0; tries < 500; ++tries) {
      try {
        if (client.get("/").status == 200) return;
      } catch (const kg::net::HttpTransportError&) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL("kode-gopher-sandbox did not answer on " << socket_path_);
  }
  ~SandboxServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }
  SandboxServerProcess(const SandboxServerProcess&) = delete;
  SandboxServerProcess& operator=(const SandboxServerProcess&) = delete;

  fs::path scratch() const { return scratch_; }
  fs::path workdir() const { return fs::path(scratch_) / "app"; }
  fs::path outside() const { return fs::path(scratch_) / "outside"; }

  // What lies outside the workdir (the server's socket and log excepted).
  std::map<std::string, std::string> outside_snapshot() const {
    return snapshot(scratch_, {"app", "sandbox.sock", "server.log"});
  }

  // Through the raw client: a refusal may come before the whole tar was sent.
  RawAnswer upload_tar(const std::string& tar, const std::string& query = "") const {
    return post_raw(socket_path_, "/upload-tar" + query, "application/x-tar", tar.size(), false,
                    [&tar](std::uint64_t offset) {
                      return tar.substr(static_cast<std::size_t>(offset), 256 * 1024);
                    });
  }

  bool alive() {
    int status = 0;
    return ::waitpid(pid_, &status, WNOHANG) == 0;
  }

  // Still serving: GET / answers, and an ordinary upload lands where it should.
  void check_still_serving() {
    INFO("the sandbox server must keep serving after a hostile upload");
    REQUIRE(alive());
    const kg::net::UnixHttpClient client(socket_path_);
    CHECK(client.get("/").status == 200);
    const std::string name = unique_marker("ok-");
    const auto ok = upload_tar(InMemoryTar().file(name + "/main.go", "package main\n").finish());
    CHECK(ok.status == 200);
    CHECK(read_whole(workdir() / name / "main.go") == "package main\n");
  }

 private:
  std::string scratch_, socket_path_;
  pid_t pid_ = -1;
};

std::string detail_of(const RawAnswer& response) {
  kg::json::ReadJson doc_read = kg::test::read_test_json(response.body);
  rapidjson::Document& doc = doc_read.document;
  if (doc_read.refused.has_value() || !doc.IsObject()) return "<not a JSON object: " + response.body + ">";
  return string_member(doc, "detail");
}

// A raw ustar header, for entries libarchive's writer would refuse to describe (a size it would
// then have to write).
std::string ustar_header(const std::string& name, char type, std::uint64_t size) {
  std::string h(512, '\0');
  std::memcpy(h.data(), name.data(), std::min<std::size_t>(name.size(), 100));
  std::snprintf(&h[100], 8, "%07o", 0644u);
  std::snprintf(&h[108], 8, "%07o", 0u);
  std::snprintf(&h[116], 8, "%07o", 0u);
  std::snprintf(&h[124], 12, "%011llo", static_cast<unsigned long long>(size));
  std::snprintf(&h[136], 12, "%011o", 1'700'000'000u);
  std::memset(&h[148], ' ', 8);
  h[156] = type;
  std::memcpy(&h[257], "ustar\0" "00", 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(&h[148], 8, "%06o", sum);
  h[155] = ' ';
  return h;
}

const std::string kTarEnd(1024, '\0');

// A gzip-compressed tar of one file of `size` zero bytes: a few KiB that expand enormously.
std::string gzip_tar_of_zeros(const std::string& name, std::size_t size) {
  std::string bytes;
  archive* writer = archive_write_new();
  archive_write_set_format_pax_restricted(writer);
  REQUIRE(archive_write_add_filter_gzip(writer) == ARCHIVE_OK);
  auto append = [](archive*, void* self, const void* data, std::size_t n) -> la_ssize_t {
    static_cast<std::string*>(self)->append(static_cast<const char*>(data), n);
    return static_cast<la_ssize_t>(n);
  };
  REQUIRE(archive_write_open(writer, &bytes, nullptr, append, nullptr) == ARCHIVE_OK);
  archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, name.c_str());
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, 0644);
  archive_entry_set_size(entry, static_cast<la_int64_t>(size));
  archive_write_header(writer, entry);
  const std::string zeros(1 << 20, '\0');
  for (std::size_t written = 0; written < size; written += zeros.size()) {
    archive_write_data(writer, zeros.data(), std::min(zeros.size(), size - written));
  }
  archive_entry_free(entry);
  archive_write_close(writer);
  archive_write_free(writer);
  return bytes;
}

}  // namespace

TEST_CASE("hostile request: /upload-tar refuses escapes, links, devices and bombs, and keeps serving") {
  SandboxServerProcess server;
  const auto outside_before = server.outside_snapshot();
  const std::string outside = server.outside().string();
  struct Refusal {
    std::string what;
    std::string tar;
    int status;
    std::string named;  // the entry the detail must name
  };
  std::string claimed_bomb = ustar_header("bomb.bin", '0', 077777777777ull);
  claimed_bomb += std::string(4096, 'x') + kTarEnd;
  std::string many_entries;
  const std::string dot = ustar_header("./", '5', 0);
  many_entries.reserve(dot.size() * 100'001 + kTarEnd.size());
  for (int i = 0; i < 100'001; ++i) many_entries += dot;
  many_entries += kTarEnd;
  const std::vector<Refusal> refusals = {
      {"a '..' member", InMemoryTar().file("../outside/dotdot.txt", "pwned").finish(), 400,
       "\"../outside/dotdot.txt\""},
      {"a '..' member inside a path",
       InMemoryTar().file("a/../../outside/dotdot2.txt", "pwned").finish(), 400,
       "\"a/../../outside/dotdot2.txt\""},
      {"an absolute member", InMemoryTar().file(outside + "/absolute.txt", "pwned").finish(), 400,
       "\"" + outside + "/absolute.txt\""},
      {"a symlink out, then a file through it",
       InMemoryTar().symlink("out", "../outside").file("out/through-link.txt", "pwned").finish(),
       400, "\"out\""},
      {"an absolute symlink out, then a file through it",
       InMemoryTar().symlink("out2", outside).file("out2/through-link.txt", "pwned").finish(), 400,
       "\"out2\""},
      {"a hard link out, then a write to it",
       InMemoryTar().hardlink("h", "../outside/secret.txt").file("h", "pwned").finish(), 400, "\"h\""},
      {"an absolute hard link, then a write to it",
       InMemoryTar().hardlink("h2", outside + "/secret.txt").file("h2", "pwned").finish(), 400, "\"h2\""},
      {"a character device", InMemoryTar().special("null", AE_IFCHR).finish(), 400, "\"null\""},
      {"a block device", InMemoryTar().special("disk", AE_IFBLK).finish(), 400, "\"disk\""},
      {"a FIFO", InMemoryTar().special("fifo", AE_IFIFO).finish(), 400, "\"fifo\""},
      {"a member claiming 8 GiB", claimed_bomb, 413, "\"bomb.bin\""},
      {"a member over the upload cap",
       InMemoryTar().file("big.bin", std::string(SandboxServerProcess::kUploadCap + 1, 'x')).finish(),
       413, "\"big.bin\""},
      {"members that add up past the upload cap",
       InMemoryTar()
           .file("part1.bin", std::string(SandboxServerProcess::kUploadCap / 2 + 1, 'x'))
           .file("part2.bin", std::string(SandboxServerProcess::kUploadCap / 2 + 1, 'x'))
           .finish(),
       413, "\"part2.bin\""},
      {"100001 members", many_entries, 413, "100000"},
      {"a gzip bomb (256 MiB of zeros)", gzip_tar_of_zeros("zeros.bin", 256u << 20), 400, "tar"},
  };
  for (const auto& refusal : refusals) {
    CAPTURE(refusal.what);
    const auto started = Clock::now();
    const auto response = server.upload_tar(refusal.tar);
    const auto ms = ms_since(started);
    const std::string detail = detail_of(response);
    INFO("answer: " << response.status << " " << detail.substr(0, 400));
    CHECK(response.status == refusal.status);
    CHECK_MESSAGE(detail.find(refusal.named) != std::string::npos,
                  "the detail does not name " << refusal.named);
    CHECK(ms < 30000);
    CHECK(server.outside_snapshot() == outside_before);
    CHECK_FALSE(fs::exists(server.workdir() / "bomb.bin"));
    CHECK_FALSE(fs::exists(server.workdir() / "big.bin"));
    CHECK_FALSE(fs::exists(server.workdir() / "zeros.bin"));
    server.check_still_serving();
  }

  {
    // A symlink already in the workdir that points out, as if a program had left it there: a file written through it must not land outside.
    fs::create_directory_symlink("../outside", server.workdir() / "link");
    fs::create_symlink("../outside/secret.txt", server.workdir() / "filelink");
    const auto through_dir = server.upload_tar(InMemoryTar().file("link/through.txt", "pwned").finish());
    INFO("through a directory link: " << through_dir.status << " " << through_dir.body);
    CHECK(through_dir.status == 400);
    CHECK(detail_of(through_dir).find("link/through.txt") != std::string::npos);
    CHECK_FALSE(fs::exists(server.outside() / "through.txt"));

    const auto as_dir = server.upload_tar(InMemoryTar().file("x.txt", "pwned").finish(), "?dir=link");
    INFO("into dir=link: " << as_dir.status << " " << as_dir.body);
    CHECK(as_dir.status == 403);
    CHECK(detail_of(as_dir).find("outside the workdir") != std::string::npos);
    CHECK_FALSE(fs::exists(server.outside() / "x.txt"));

    // Over a link to a file: refused, or the link itself replaced; never written through.
    const auto over_file = server.upload_tar(InMemoryTar().file("filelink", "pwned").finish());
    INFO("over a file link: " << over_file.status << " " << over_file.body);
    CHECK((over_file.status == 200 || over_file.status == 400));
    CHECK(read_whole(server.outside() / "secret.txt") == "do not touch\n");
    if (over_file.status == 200) {
      CHECK_FALSE(fs::is_symlink(server.workdir() / "filelink"));
      CHECK(read_whole(server.workdir() / "filelink") == "pwned");
    }
    CHECK(server.outside_snapshot() == outside_before);
    server.check_still_serving();
  }
}

// ---- Oversized, deep and badly encoded requests to the daemon ---------------------------------

namespace {

struct RowCounts {
  std::int64_t sessions, calls;
  bool operator==(const RowCounts&) const = default;
};

RowCounts row_counts(const DaemonFixture& daemon) {
  const StateDatabase db(daemon);
  return {db.integer("SELECT COUNT(*) FROM sessions"), db.integer("SELECT COUNT(*) FROM calls")};
}

}  // namespace

TEST_CASE("hostile request: a 100 MiB body is refused early with 413 naming the limit") {
  HostileDaemon daemon;
  daemon.start();
  const auto rows_before = row_counts(daemon.fixture());
  const std::uint64_t total = 100ull << 20;
  const std::string prefix = "{\"code\":\"";
  const std::string suffix = "\"}";
  const std::string filler(1 << 20, 'a');
  auto piece = [&](std::uint64_t offset) -> std::string {
    if (offset == 0) return prefix;
    const std::uint64_t left = total - offset;
    if (left == suffix.size()) return suffix;
    return filler.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(filler.size(), left - suffix.size())));
  };
  for (const bool chunked : {false, true}) {
    CAPTURE(chunked);
    const auto started = Clock::now();
    const auto answer = post_raw(daemon->socket_path(), "/v1/execute", "application/json", total,
                                 chunked, piece);
    const auto ms = ms_since(started);
    INFO("answer " << answer.status << " after " << answer.sent << " body bytes in " << ms
                   << " ms: " << answer.body.substr(0, 400));
    CHECK(answer.status == 413);
    if (answer.status != 0) {
      kg::json::ReadJson doc_read = kg::test::read_test_json(answer.body);
      rapidjson::Document& doc = doc_read.document;
      REQUIRE_FALSE(doc_read.refused.has_value());
      REQUIRE(doc.HasMember("error"));
      CHECK(string_member(doc["error"], "code") == "payload_too_large");
      const std::string message = string_member(doc["error"], "message");
      CHECK(message.find("max_request_bytes") != std::string::npos);
      CHECK(message.find("16777216") != std::string::npos);
    }
    // Refused early: long before the 100 MiB were all taken in.
    CHECK(answer.sent < total / 2);
    CHECK(ms < 30000);
  }
  CHECK(row_counts(daemon.fixture()) == rows_before);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile request: deeply nested JSON is a 400 that names the depth limit") {
  HostileDaemon daemon;
  daemon.start();
  const auto rows_before = row_counts(daemon.fixture());
  const std::string code = R"({"code":"package main\n\nfunc main() {}\n","x":)";
  auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  const std::vector<std::pair<const char*, std::string>> bodies = {
      {"100000 unclosed '['", std::string(100'000, '[')},
      {"100000 balanced arrays in an ignored member", code + nested(100'000) + "}"},
      {"100000 nested objects", [] {
         std::string body;
         for (int i = 0; i < 100'000; ++i) body += "{\"a\":";
         return body + "1" + std::string(100'000, '}');
       }()},
      {"65 levels: one past the limit", code + nested(64) + "}"},
  };
  for (const auto& [what, body] : bodies) {
    CAPTURE(what);
    const auto response = daemon->post("/v1/execute", body);
    INFO("answer: " << response.status << " " << response.body.substr(0, 400));
    CHECK(response.status == 400);
    const auto error = api_error(response);
    CHECK(error.code == "bad_request");
    CHECK(error.message.find("nested") != std::string::npos);
    CHECK(error.message.find("64") != std::string::npos);
  }
  CHECK(row_counts(daemon.fixture()) == rows_before);
  {
    // 64 levels (the object and 63 arrays) are still fine.
    const auto response = daemon->post(
        "/v1/execute", R"({"code":"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"deep ok\") }\n","x":)" +
                           nested(63) + "}");
    INFO("answer: " << response.status << " " << response.body.substr(0, 400));
    REQUIRE(response.status == 200);
    const auto r = daemon->json(response);
    CHECK(string_member(r, "status") == "ok");
    CHECK(string_member(r, "stdout") == "deep ok\n");
    check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  }
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile request: invalid UTF-8 in a request is a 400 that says so") {
  HostileDaemon daemon;
  daemon.start();
  const auto rows_before = row_counts(daemon.fixture());
  const std::vector<std::pair<const char*, std::string>> bodies = {
      {"0xFF 0xFE in code", "{\"code\":\"package main\\n\\nfunc main() {}\\n// \xff\xfe\\n\"}"},
      {"an overlong '/' in code", "{\"code\":\"package main\\n// \xc0\xaf\\nfunc main() {}\\n\"}"},
      {"a UTF-16 surrogate encoded as UTF-8", "{\"code\":\"package main\\n// \xed\xa0\x80\\nfunc main() {}\\n\"}"},
      {"a truncated sequence at the end of code", "{\"code\":\"package main\\nfunc main() {}\\n// \xe2\x82\"}"},
      {"0xFF in a file name", "{\"files\":{\"ma\xffin.go\":\"package main\\nfunc main() {}\\n\"}}"},
  };
  for (const auto& [what, body] : bodies) {
    CAPTURE(what);
    const auto response = daemon->post("/v1/execute", body);
    INFO("answer: " << response.status << " " << response.body.substr(0, 400));
    CHECK(response.status == 400);
    // The answer itself is valid UTF-8 JSON, whatever the request held.
    kg::json::ReadJson doc_read = kg::test::read_test_json(response.body);
    rapidjson::Document& doc = doc_read.document;
    CHECK_FALSE(doc_read.refused.has_value());
    const auto error = api_error(response);
    CHECK(error.code == "bad_request");
    CHECK(error.message.find("UTF-8") != std::string::npos);
  }
  {
    // An escaped lone surrogate is not UTF-8 either: still a clear 400.
    const auto response = daemon->post("/v1/execute", R"({"code":"package main\n// \ud800\nfunc main() {}\n"})");
    INFO("answer: " << response.status << " " << response.body);
    CHECK(response.status == 400);
    CHECK(api_error(response).code == "bad_request");
  }
  CHECK(row_counts(daemon.fixture()) == rows_before);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile request: a program printing invalid UTF-8 gets valid JSON back, bytes replaced") {
  HostileDaemon daemon;
  daemon.start();
  const auto response = daemon->post("/v1/execute", execute_body({{"main.go", R"(package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Print("before \xff\xfe after\n")
	fmt.Print("overlong \xc0\xaf, surrogate \xed\xa0\x80, fine: é ✓\n")
	fmt.Fprint(os.Stderr, "stderr \xff too\n")
	fmt.Print("cut at the end \xe2\x82")
}
)"}}));
  INFO("answer: " << response.status << " " << response.body.substr(0, 600));
  REQUIRE(response.status == 200);
  kg::json::ReadJson r_read = kg::test::read_test_json(response.body);
  rapidjson::Document& r = r_read.document;
  REQUIRE_FALSE(r_read.refused.has_value());
  CHECK(string_member(r, "status") == "ok");
  const std::string out = string_member(r, "stdout");
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(out.starts_with("before " + fffd + fffd + " after\n"));
  CHECK(out.find("fine: \xC3\xA9 \xE2\x9C\x93\n") != std::string::npos);  // valid text kept as is
  CHECK(out.find("cut at the end " + fffd) != std::string::npos);
  CHECK(out.find('\xff') == std::string::npos);
  CHECK(string_member(r, "stderr") == "stderr " + fffd + " too\n");
  check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

// ---- Many callers at once ----------------------------------------------------------------------

TEST_CASE("hostile request: 20 concurrent sessions all succeed") {
  HostileDaemon daemon;
  constexpr int kCallers = 20;
  {
    // Meaningful only while the daemon has fewer slots than callers: the rest must queue.
    std::ifstream config(daemon->config_path());
    int max_sessions = 16;  // the default
    for (std::string line; std::getline(config, line);) {
      if (line.starts_with("max_sessions")) max_sessions = std::stoi(line.substr(line.find('=') + 1));
    }
    REQUIRE(max_sessions < kCallers);
  }
  daemon.start();
  const std::string program = R"(package main

import "fmt"

func main() { fmt.Println("one of twenty") }
)";
  // One call first, so the twenty find the binary cached and the test stays quick.
  const auto warm = execute_once(daemon.fixture(), program);
  REQUIRE(string_member(warm, "status") == "ok");

  const std::string client = unique_marker("kg-concurrent-");
  struct Outcome {
    int open_status = 0, execute_status = 0, close_status = 0;
    std::string session_id, result_status, stdout_text, error;
  };
  std::vector<Outcome> outcomes(kCallers);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  const auto started = Clock::now();
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&, i] {
      Outcome& o = outcomes[static_cast<std::size_t>(i)];
      ++ready;
      while (!go) std::this_thread::yield();
      try {
        const auto opened = daemon->post("/v1/sessions", R"({"client":")" + client + R"("})");
        o.open_status = opened.status;
        if (opened.status != 201) {
          o.error = opened.body;
          return;
        }
        kg::json::ReadJson doc_read = kg::test::read_test_json(opened.body);
        rapidjson::Document& doc = doc_read.document;
        o.session_id = string_member(doc, "id");
        const auto ran = daemon->post("/v1/sessions/" + o.session_id + "/execute",
                                      execute_body({{"main.go", program}}));
        o.execute_status = ran.status;
        kg::json::ReadJson result_read = kg::test::read_test_json(ran.body);
        rapidjson::Document& result = result_read.document;
        o.result_status = string_member(result, "status");
        o.stdout_text = string_member(result, "stdout");
        if (ran.status != 200) o.error = ran.body;
        o.close_status = daemon->del("/v1/sessions/" + o.session_id).status;
      } catch (const std::exception& e) {
        o.error = e.what();
      }
    });
  }
  while (ready < kCallers) std::this_thread::yield();
  go = true;
  for (auto& t : threads) t.join();
  const auto ms = ms_since(started);
  MESSAGE("20 concurrent sessions took " << ms << " ms");
  for (int i = 0; i < kCallers; ++i) {
    const auto& o = outcomes[static_cast<std::size_t>(i)];
    CAPTURE(i);
    INFO("error: " << o.error);
    CHECK(o.open_status == 201);
    CHECK(o.execute_status == 200);
    CHECK(o.result_status == "ok");
    CHECK(o.stdout_text == "one of twenty\n");
    CHECK(o.close_status == 200);
  }
  CHECK(ms < 240000);
  {
    const StateDatabase db(daemon.fixture());
    const auto sessions = db.sessions_of_client(client);
    CHECK(sessions.size() == static_cast<std::size_t>(kCallers));
    for (const auto& s : sessions) {
      CAPTURE(s.id);
      CHECK(s.state == "closed");
      const auto calls = db.calls_of_session(s.id);
      REQUIRE(calls.size() == 1);
      CHECK(calls[0].state == "done");
      CHECK(calls[0].status.value_or("<null>") == "ok");
    }
    CHECK(db.integer("SELECT COUNT(*) FROM calls c JOIN sessions s ON s.id = c.session_id "
                     "WHERE s.client = '" + client + "' AND c.status = 'ok'") == kCallers);
  }
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

// A client that declares a Content-Length and hangs up halfway: the part that came is never read
// as the request (a prefix of a request can be a valid, different request), the client hears
// what was wrong, and nothing is recorded.
TEST_CASE("hostile request: a body shorter than its Content-Length is a 400, never a shorter request") {
  HostileDaemon daemon;
  daemon.start();
  const auto rows_before = row_counts(daemon.fixture());
  const std::string sent = R"({"code":"package main\n\nfunc main() {}\n"})";
  const std::size_t declared = sent.size() + 100;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, daemon->socket_path().c_str(), sizeof address.sun_path - 1);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  const std::string request = "POST /v1/execute HTTP/1.1\r\nHost: localhost\r\n"
                              "Content-Type: application/json\r\nConnection: close\r\n"
                              "Content-Length: " + std::to_string(declared) + "\r\n\r\n" + sent;
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size()));
  ::shutdown(fd, SHUT_WR);
  std::string received;
  char buffer[4096];
  for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    received.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  INFO("answer: " << received.substr(0, 600));
  REQUIRE(received.starts_with("HTTP/1.1 400"));
  CHECK(received.find("bad_request") != std::string::npos);
  CHECK(received.find("ended after " + std::to_string(sent.size()) + " of its " +
                      std::to_string(declared) + " bytes") != std::string::npos);
  CHECK(row_counts(daemon.fixture()) == rows_before);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}
