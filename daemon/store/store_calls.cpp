// Store: the calls table, and reconciling both tables after a crash.
#include <sqlite3.h>

#include "sqlite_statement.hpp"
#include "store.hpp"
#include "store_rows.hpp"
#include "utc_time.hpp"

namespace kg::store {

std::int64_t Store::begin_call(const CallStart& call) {
  std::lock_guard lock(mutex_);
  SqliteStatement insert(db_, *statements_,
                         "INSERT INTO calls (session_id, runtime, state, code_sha256, "
                         "input_bytes, created_at, action) VALUES (?, ?, 'running', ?, ?, ?, ?)",
                         "Failed to record call start");
  insert.bind_text(1, call.session_id)
      .bind_text(2, call.runtime)
      .bind_text(3, call.code_sha256)
      .bind_integer(4, to_sql_integer(call.input_bytes))
      .bind_text(5, utc::to_rfc3339_millis(std::chrono::system_clock::now()))
      .bind_text(6, call.action);
  insert.run();
  return sqlite3_last_insert_rowid(db_);
}

void Store::finish_call(std::int64_t call_id, const CallOutcome& outcome) {
  end_call(call_id, outcome, "done");
}

void Store::interrupt_call(std::int64_t call_id, const CallOutcome& outcome) {
  end_call(call_id, outcome, "interrupted");
}

void Store::end_call(std::int64_t call_id, const CallOutcome& outcome, const char* state) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to record the outcome of call " + std::to_string(call_id);
  SqliteStatement update(
      db_, *statements_,
      "UPDATE calls SET state = ?, mode = ?, phase = ?, status = ?, exit_code = ?, "
      "queue_ms = ?, setup_ms = ?, build_ms = ?, run_ms = ?, total_ms = ?, cache_hit = ?, "
      "tidied = ?, output_bytes = ?, error_message = ?, finished_at = ?, "
      "runtime = COALESCE(?, runtime), runtime_reason = ? "
      "WHERE id = ? AND state = 'running'",
      operation);
  update.bind_text(1, state)
      .bind_text_or_null(2, outcome.mode)
      .bind_text_or_null(3, outcome.phase)
      .bind_text_or_null(4, outcome.status)
      .bind_integer(5, outcome.exit_code)
      .bind_integer(6, to_sql_integer(outcome.queue_ms))
      .bind_integer(7, to_sql_integer(outcome.setup_ms))
      .bind_integer(8, to_sql_integer(outcome.build_ms))
      .bind_integer(9, to_sql_integer(outcome.run_ms))
      .bind_integer(10, to_sql_integer(outcome.total_ms))
      .bind_integer(11, outcome.cache_hit ? 1 : 0)
      .bind_integer(12, outcome.tidied ? 1 : 0)
      .bind_integer(13, to_sql_integer(outcome.output_bytes))
      .bind_text_or_null(14, outcome.error_message)
      .bind_text(15, utc::to_rfc3339_millis(std::chrono::system_clock::now()))
      .bind_text_or_null(16, outcome.runtime)
      .bind_text_or_null(17, outcome.runtime_reason)
      .bind_integer(18, call_id);
  update.run();
  if (sqlite3_changes(db_) != 0) return;
  SqliteStatement query(db_, "SELECT state FROM calls WHERE id = ?", operation);
  query.bind_integer(1, call_id);
  if (!query.step()) throw StoreError(operation + ": no such call");
  throw StoreError(operation + ": the call is already " + query.text(0));
}

std::optional<CallRecord> Store::find_call(std::int64_t call_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(db_, "SELECT " + std::string(kCallColumns) + " FROM calls WHERE id = ?",
                        "Failed to look up call " + std::to_string(call_id));
  query.bind_integer(1, call_id);
  if (!query.step()) return std::nullopt;
  return read_call_row(query);
}

std::vector<CallRecord> Store::list_calls(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(
      db_, "SELECT " + std::string(kCallColumns) + " FROM calls WHERE session_id = ? ORDER BY id",
      "Failed to list the calls of session \"" + session_id + "\"");
  query.bind_text(1, session_id);
  std::vector<CallRecord> calls;
  while (query.step()) calls.push_back(read_call_row(query));
  return calls;
}

ReconcileReport Store::reconcile_after_crash() {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to reconcile the database after a crash";
  const std::string reason = "daemon stopped unexpectedly";
  const std::string now = utc::to_rfc3339_millis(std::chrono::system_clock::now());
  ReconcileReport report;
  SqliteTransaction transaction(db_, operation);
  {
    SqliteStatement query(
        db_, "SELECT " + std::string(kSessionColumns) +
                 " FROM sessions s WHERE s.state = 'open' ORDER BY s.opened_at, s.rowid",
        operation);
    while (query.step()) {
      auto session = read_session_row(query);
      session.state = "interrupted";
      session.closed_at = now;
      session.close_reason = reason;
      report.interrupted_sessions.push_back(std::move(session));
    }
  }
  SqliteStatement close_sessions(db_,
                                 "UPDATE sessions SET state = 'interrupted', closed_at = ?, "
                                 "close_reason = ? WHERE state = 'open'",
                                 operation);
  close_sessions.bind_text(1, now).bind_text(2, reason);
  close_sessions.run();
  SqliteStatement stop_calls(db_,
                             "UPDATE calls SET state = 'interrupted', finished_at = ?, "
                             "error_message = ? WHERE state = 'running'",
                             operation);
  stop_calls.bind_text(1, now).bind_text(2, reason);
  stop_calls.run();
  report.interrupted_calls = sqlite3_changes(db_);
  transaction.commit();
  return report;
}

}  // namespace kg::store
