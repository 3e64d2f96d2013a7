// Shared pieces of the `hostile` suite: a daemon with a fake home full of fake secrets, and the
// checks every hostile test ends with — the daemon still serves (/v1/health and a hello-world
// call), and what it recorded in SQLite agrees with what its API answered. Also host-side probes
// (processes left behind, the daemon's memory) that tests use to prove containment.
#pragma once

#include <rapidjson/document.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon_fixture.hpp"

namespace kg::test::hostile {

// A DaemonFixture whose kode-gopherd runs with HOME set to a fake home inside the fixture's
// directory, holding fake secrets a sandboxed program must not be able to read:
//   <home>/.config/gcloud/credentials.db, application_default_credentials.json,
//   <home>/.ssh/id_ed25519 and <home>/secret.txt — each containing secret_marker().
class HostileDaemon {
 public:
  HostileDaemon();

  void start();  // starts the daemon with HOME = fake_home() (the test's own HOME is restored)
  DaemonFixture& fixture() { return fixture_; }
  const DaemonFixture& fixture() const { return fixture_; }
  DaemonFixture* operator->() { return &fixture_; }

  const std::string& fake_home() const { return fake_home_; }
  const std::string& secret_marker() const { return secret_marker_; }
  std::string database_path() const { return fixture_.state_dir() + "/kode-gopher.db"; }

 private:
  DaemonFixture fixture_;
  std::string fake_home_;
  std::string secret_marker_;
};

// A random lowercase hex word, unique enough to find a test's own processes and rows.
std::string unique_marker(const std::string& prefix);

// The body of an execute request: {"files": {...}} plus extra members (raw JSON, e.g.
// R"("timeout_ms": 1000)").
std::string execute_body(const std::map<std::string, std::string>& files,
                         const std::string& extra_members = "");

// POST /v1/execute (a one-shot session), REQUIREs 200, returns the result.
rapidjson::Document execute_once(DaemonFixture& daemon, const std::string& main_go,
                                 const std::string& extra_members = "");

// A string member with its real length (NULs included); "" when missing or not a string.
std::string string_member(const rapidjson::Value& object, const char* key);
std::int64_t int_member(const rapidjson::Value& object, const char* key);

// The {"error": {"code", "message"}} of an error answer, REQUIREd to have that shape.
struct ApiError {
  std::string code;
  std::string message;
};
ApiError api_error(const net::HttpResponse& response);

// The daemon still serves: GET /v1/health answers 200 with "status":"ok" for this daemon's pid,
// and a one-shot hello-world call comes back ok with its output and a consistent record.
void check_daemon_healthy(DaemonFixture& daemon);

// ---- The daemon's SQLite database, read-only -------------------------------------------------

struct SessionRow {
  std::string id, client, state, close_reason;
  std::optional<std::string> sandbox_id;
};

struct CallRow {
  std::int64_t id = 0;
  std::string session_id, runtime, state;
  std::optional<std::string> status, phase, mode, error_message;
  std::optional<std::int64_t> exit_code;
};

// Opens <state_dir>/kode-gopher.db with SQLITE_OPEN_READONLY for the lifetime of the object.
class StateDatabase {
 public:
  explicit StateDatabase(const DaemonFixture& daemon);
  ~StateDatabase();
  StateDatabase(const StateDatabase&) = delete;
  StateDatabase& operator=(const StateDatabase&) = delete;

  std::optional<SessionRow> session(const std::string& id) const;
  std::optional<CallRow> call(std::int64_t id) const;
  std::vector<CallRow> calls_of_session(const std::string& session_id) const;
  std::vector<SessionRow> sessions_of_client(const std::string& client) const;
  // The first column of the first row of a query without parameters, e.g. a SELECT COUNT(*).
  std::int64_t integer(const std::string& sql) const;
  std::int64_t newest_call_id() const;  // 0 when there is none

 private:
  struct Handle;
  Handle* handle_;
};

enum class CallScope { one_shot, in_session };

// The call behind an ExecuteResult is recorded: its row exists, belongs to the result's session,
// is done, and has the status and exit code the API answered; the session row exists, and a
// one-shot call's session is closed while a call in a client's session leaves it open.
void check_call_recorded(const DaemonFixture& daemon, const rapidjson::Value& result,
                         CallScope scope);

// A refused call (an HTTP error after the call started, e.g. 400 invalid_input) is recorded as
// done with status "rejected" and an error message containing `expected_in_message`.
void check_call_refused(const DaemonFixture& daemon, std::int64_t call_id,
                        const std::string& expected_in_message);

// Every call is finished (none left 'running') and every one-shot session is closed: what must
// hold whenever no request is in flight and no client session is open.
void check_nothing_left_running(const DaemonFixture& daemon);

// ---- The host, seen from outside the sandbox -------------------------------------------------

// Live (not zombie) processes on the host whose argv or environment contains `marker`.
std::vector<pid_t> host_processes_with_marker(const std::string& marker);

// Waits up to `patience` (SIGKILL takes effect asynchronously) and returns the survivors.
std::vector<pid_t> surviving_processes_with_marker(
    const std::string& marker, std::chrono::milliseconds patience = std::chrono::seconds(2));

// The fixture's sandbox processes (bubblewrap and what it runs) still alive after `patience`.
std::vector<pid_t> surviving_sandbox_processes(
    const DaemonFixture& daemon, std::chrono::milliseconds patience = std::chrono::seconds(2));

// VmRSS and VmHWM (peak) of a process, in KiB (0 when unreadable).
struct MemoryUse {
  std::uint64_t rss_kib = 0;
  std::uint64_t peak_kib = 0;
};
MemoryUse memory_use(pid_t pid);

}  // namespace kg::test::hostile
