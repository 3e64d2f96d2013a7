#include "hostile_checks.hpp"
#include "../support/test_json.hpp"

#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kg::test::hostile {
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write the fake secret " + path.string());
}

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// HOME for the daemon only: set around the fork in DaemonFixture::start, then restored.
class ScopedHome {
 public:
  explicit ScopedHome(const std::string& home) {
    if (const char* old = std::getenv("HOME")) old_ = old;
    ::setenv("HOME", home.c_str(), 1);
  }
  ~ScopedHome() {
    if (old_) ::setenv("HOME", old_->c_str(), 1);
    else ::unsetenv("HOME");
  }
  ScopedHome(const ScopedHome&) = delete;
  ScopedHome& operator=(const ScopedHome&) = delete;

 private:
  std::optional<std::string> old_;
};

}  // namespace

HostileDaemon::HostileDaemon()
    : fake_home_(fixture_.dir() + "/home"), secret_marker_(unique_marker("kg-fake-secret-")) {
  const std::string secret = "fake secret " + secret_marker_ + "\n";
  write_file(fake_home_ + "/.config/gcloud/credentials.db",
             std::string("SQLite format 3\0", 16) + secret);
  write_file(fake_home_ + "/.config/gcloud/application_default_credentials.json",
             R"({"type":"authorized_user","refresh_token":")" + secret_marker_ + R"("})");
  write_file(fake_home_ + "/.config/gcloud/configurations/config_default",
             "[core]\naccount = " + secret_marker_ + "@example.com\n");
  write_file(fake_home_ + "/.ssh/id_ed25519", secret);
  write_file(fake_home_ + "/secret.txt", secret);
}

void HostileDaemon::start() {
  const ScopedHome home(fake_home_);
  fixture_.start();
}

std::string unique_marker(const std::string& prefix) {
  static std::mt19937_64 generator{std::random_device{}()};
  std::ostringstream text;
  text << prefix << std::hex << generator();
  return text.str();
}

std::string execute_body(const std::map<std::string, std::string>& files,
                         const std::string& extra_members) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("files");
  w.StartObject();
  for (const auto& [path, source] : files) {
    w.Key(path.data(), static_cast<rapidjson::SizeType>(path.size()));
    w.String(source.data(), static_cast<rapidjson::SizeType>(source.size()));
  }
  w.EndObject();
  w.EndObject();
  std::string body = buffer.GetString();
  if (!extra_members.empty()) body = body.substr(0, body.size() - 1) + "," + extra_members + "}";
  return body;
}

rapidjson::Document execute_once(DaemonFixture& daemon, const std::string& main_go,
                                 const std::string& extra_members) {
  const auto response = daemon.post("/v1/execute", execute_body({{"main.go", main_go}}, extra_members));
  INFO("POST /v1/execute answered " << response.status << ": " << response.body);
  REQUIRE(response.status == 200);
  return daemon.json(response);
}

std::string string_member(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return {};
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

std::int64_t int_member(const rapidjson::Value& object, const char* key) {
  const auto it = object.FindMember(key);
  REQUIRE_MESSAGE(it != object.MemberEnd(), "no member \"" << key << "\"");
  REQUIRE_MESSAGE(it->value.IsInt64(), "member \"" << key << "\" is not an integer");
  return it->value.GetInt64();
}

ApiError api_error(const net::HttpResponse& response) {
  kg::json::ReadJson doc_read = kg::test::read_test_json(response.body);
  rapidjson::Document& doc = doc_read.document;
  INFO("error answer: " << response.status << " " << response.body);
  REQUIRE_FALSE(doc_read.refused.has_value());
  REQUIRE(doc.IsObject());
  const auto it = doc.FindMember("error");
  REQUIRE(it != doc.MemberEnd());
  REQUIRE(it->value.IsObject());
  return {string_member(it->value, "code"), string_member(it->value, "message")};
}

void check_daemon_healthy(DaemonFixture& daemon) {
  INFO("the daemon must still serve after the hostile test");
  REQUIRE_MESSAGE(daemon.running(), "kode-gopherd is no longer running; see " << daemon.dir()
                                                                              << "/daemon.log");
  const auto health = daemon.get("/v1/health");
  REQUIRE(health.status == 200);
  const auto doc = daemon.json(health);
  CHECK(string_member(doc, "status") == "ok");
  CHECK(int_member(doc, "pid") == daemon.pid());

  const auto hello = execute_once(daemon, R"(package main

import "fmt"

func main() { fmt.Println("hello, still healthy") }
)");
  CHECK(string_member(hello, "status") == "ok");
  CHECK(string_member(hello, "stdout") == "hello, still healthy\n");
  check_call_recorded(daemon, hello, CallScope::one_shot);
}

// ---- StateDatabase ---------------------------------------------------------------------------

struct StateDatabase::Handle {
  sqlite3* db = nullptr;
};

namespace {

class Query {
 public:
  Query(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) {
      throw std::runtime_error("cannot prepare \"" + sql + "\": " + sqlite3_errmsg(db));
    }
  }
  ~Query() { sqlite3_finalize(statement_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& bind(int index, const std::string& text) {
    sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Query& bind(int index, std::int64_t value) {
    sqlite3_bind_int64(statement_, index, value);
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("sqlite3_step: ") + sqlite3_errmsg(db_));
  }
  std::optional<std::string> text(int column) const {
    if (sqlite3_column_type(statement_, column) == SQLITE_NULL) return std::nullopt;
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)));
  }
  std::optional<std::int64_t> integer(int column) const {
    if (sqlite3_column_type(statement_, column) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(statement_, column);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
};

constexpr const char* kSessionColumns = "id, client, state, close_reason, sandbox_id";
constexpr const char* kCallColumns =
    "id, session_id, runtime, state, status, phase, mode, error_message, exit_code";

SessionRow session_row(const Query& q) {
  return {q.text(0).value_or(""), q.text(1).value_or(""), q.text(2).value_or(""),
          q.text(3).value_or(""), q.text(4)};
}

CallRow call_row(const Query& q) {
  CallRow row;
  row.id = q.integer(0).value_or(0);
  row.session_id = q.text(1).value_or("");
  row.runtime = q.text(2).value_or("");
  row.state = q.text(3).value_or("");
  row.status = q.text(4);
  row.phase = q.text(5);
  row.mode = q.text(6);
  row.error_message = q.text(7);
  row.exit_code = q.integer(8);
  return row;
}

}  // namespace

StateDatabase::StateDatabase(const DaemonFixture& daemon) : handle_(new Handle) {
  const std::string path = daemon.state_dir() + "/kode-gopher.db";
  if (sqlite3_open_v2(path.c_str(), &handle_->db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string message = handle_->db ? sqlite3_errmsg(handle_->db) : "out of memory";
    sqlite3_close(handle_->db);
    delete handle_;
    throw std::runtime_error("cannot open the daemon's database " + path + " read-only: " +
                             message);
  }
  sqlite3_busy_timeout(handle_->db, 5000);
}

StateDatabase::~StateDatabase() {
  sqlite3_close(handle_->db);
  delete handle_;
}

std::optional<SessionRow> StateDatabase::session(const std::string& id) const {
  Query q(handle_->db, std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE id = ?");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return session_row(q);
}

std::optional<CallRow> StateDatabase::call(std::int64_t id) const {
  Query q(handle_->db, std::string("SELECT ") + kCallColumns + " FROM calls WHERE id = ?");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return call_row(q);
}

std::vector<CallRow> StateDatabase::calls_of_session(const std::string& session_id) const {
  Query q(handle_->db,
          std::string("SELECT ") + kCallColumns + " FROM calls WHERE session_id = ? ORDER BY id");
  q.bind(1, session_id);
  std::vector<CallRow> rows;
  while (q.step()) rows.push_back(call_row(q));
  return rows;
}

std::vector<SessionRow> StateDatabase::sessions_of_client(const std::string& client) const {
  Query q(handle_->db,
          std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE client = ? ORDER BY id");
  q.bind(1, client);
  std::vector<SessionRow> rows;
  while (q.step()) rows.push_back(session_row(q));
  return rows;
}

std::int64_t StateDatabase::integer(const std::string& sql) const {
  Query q(handle_->db, sql);
  if (!q.step()) throw std::runtime_error("no row from " + sql);
  return q.integer(0).value_or(0);
}

std::int64_t StateDatabase::newest_call_id() const {
  return integer("SELECT COALESCE(MAX(id), 0) FROM calls");
}

void check_call_recorded(const DaemonFixture& daemon, const rapidjson::Value& result,
                         CallScope scope) {
  const auto call_id = int_member(result, "call_id");
  const auto session_id = string_member(result, "session_id");
  INFO("call " << call_id << " of session " << session_id << " in " << daemon.state_dir());
  REQUIRE_FALSE(session_id.empty());
  const StateDatabase db(daemon);
  const auto call = db.call(call_id);
  REQUIRE_MESSAGE(call.has_value(), "the call has no row in the calls table");
  CHECK(call->session_id == session_id);
  CHECK(call->state == "done");
  CHECK(call->status.value_or("<null>") == string_member(result, "status"));
  CHECK(call->phase.value_or("<null>") == string_member(result, "phase"));
  CHECK(call->runtime == string_member(result, "runtime"));
  if (result.HasMember("exit_code")) {
    CHECK(call->exit_code.value_or(-12345) == int_member(result, "exit_code"));
  }
  const auto session = db.session(session_id);
  REQUIRE_MESSAGE(session.has_value(), "the call's session has no row in the sessions table");
  if (scope == CallScope::one_shot) {
    CHECK(session->state == "closed");
    CHECK_FALSE(session->close_reason.empty());
    CHECK(db.calls_of_session(session_id).size() == 1);
  } else {
    CHECK(session->state == "open");
  }
}

void check_call_refused(const DaemonFixture& daemon, std::int64_t call_id,
                        const std::string& expected_in_message) {
  INFO("refused call " << call_id << " in " << daemon.state_dir());
  const StateDatabase db(daemon);
  const auto call = db.call(call_id);
  REQUIRE_MESSAGE(call.has_value(), "the refused call has no row in the calls table");
  CHECK(call->state == "done");
  CHECK(call->status.value_or("<null>") == "rejected");
  CHECK_MESSAGE(call->error_message.value_or("").find(expected_in_message) != std::string::npos,
                "error_message: " << call->error_message.value_or("<null>"));
}

void check_nothing_left_running(const DaemonFixture& daemon) {
  const StateDatabase db(daemon);
  CHECK(db.integer("SELECT COUNT(*) FROM calls WHERE state <> 'done'") == 0);
  CHECK(db.integer("SELECT COUNT(*) FROM calls WHERE status IS NULL") == 0);
  CHECK(db.integer("SELECT COUNT(*) FROM sessions WHERE state <> 'closed'") == 0);
  CHECK(db.integer("SELECT COUNT(*) FROM calls WHERE session_id NOT IN (SELECT id FROM sessions)") ==
        0);
}

// ---- The host --------------------------------------------------------------------------------

std::vector<pid_t> host_processes_with_marker(const std::string& marker) {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const auto name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    const std::string stat = read_whole(entry.path() / "stat");
    const auto paren = stat.rfind(')');
    if (stat.empty() || paren == std::string::npos || paren + 2 >= stat.size()) continue;  // gone
    const char state = stat[paren + 2];
    if (state == 'Z' || state == 'X') continue;
    const std::string seen = read_whole(entry.path() / "cmdline") + '\0' +
                             read_whole(entry.path() / "environ");
    if (seen.find(marker) != std::string::npos) found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> surviving_processes_with_marker(const std::string& marker,
                                                   std::chrono::milliseconds patience) {
  const auto give_up = std::chrono::steady_clock::now() + patience;
  for (;;) {
    auto found = host_processes_with_marker(marker);
    if (found.empty() || std::chrono::steady_clock::now() >= give_up) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<pid_t> surviving_sandbox_processes(const DaemonFixture& daemon,
                                               std::chrono::milliseconds patience) {
  const auto give_up = std::chrono::steady_clock::now() + patience;
  for (;;) {
    auto found = daemon.sandbox_processes();
    std::erase_if(found, [](pid_t pid) {
      const std::string stat = read_whole("/proc/" + std::to_string(pid) + "/stat");
      const auto paren = stat.rfind(')');
      return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] == 'Z';
    });
    if (found.empty() || std::chrono::steady_clock::now() >= give_up) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

MemoryUse memory_use(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  MemoryUse use;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    std::uint64_t kib = 0;
    words >> key >> kib;
    if (key == "VmRSS:") use.rss_kib = kib;
    if (key == "VmHWM:") use.peak_kib = kib;
  }
  return use;
}

}  // namespace kg::test::hostile
