// Store: the sessions table.
#include <sqlite3.h>

#include "sqlite_statement.hpp"
#include "store.hpp"
#include "store_rows.hpp"
#include "utc_time.hpp"

namespace kg::store {
namespace {

bool session_exists(sqlite3* db, const std::string& session_id, const std::string& operation) {
  SqliteStatement query(db, "SELECT 1 FROM sessions WHERE id = ?", operation);
  query.bind_text(1, session_id);
  return query.step();
}

[[noreturn]] void throw_no_such_session(const std::string& operation) {
  throw StoreError(operation + ": no such session");
}

}  // namespace

void Store::insert_session(const SessionRecord& session) {
  std::lock_guard lock(mutex_);
  SqliteStatement insert(db_,
                         "INSERT INTO sessions (id, client, provider, sandbox_id, runtime, state, "
                         "opened_at, owner, owner_email) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?)",
                         "Failed to record session \"" + session.id + "\"");
  insert.bind_text(1, session.id)
      .bind_text(2, session.client)
      .bind_text(3, session.provider)
      .bind_text_or_null(4, session.sandbox_id)
      .bind_text(5, session.runtime)
      .bind_text(6, utc::to_rfc3339_millis(std::chrono::system_clock::now()))
      .bind_text(7, session.owner)
      .bind_text(8, session.owner_email);
  insert.run();
}

void Store::attach_sandbox(const std::string& session_id, const std::string& sandbox_id) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to attach sandbox to session \"" + session_id + "\"";
  SqliteStatement update(db_, "UPDATE sessions SET sandbox_id = ? WHERE id = ?", operation);
  update.bind_text_or_null(1, sandbox_id).bind_text(2, session_id);
  update.run();
  if (sqlite3_changes(db_) == 0) throw_no_such_session(operation);
}

void Store::close_session(const std::string& session_id, const std::string& state,
                          const std::string& reason) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to close session \"" + session_id + "\"";
  if (state != "closed" && state != "interrupted") {
    throw StoreError(operation + ": state must be closed or interrupted, got \"" + state + "\"");
  }
  SqliteStatement update(db_,
                         "UPDATE sessions SET state = ?, closed_at = ?, close_reason = ? "
                         "WHERE id = ? AND state = 'open'",
                         operation);
  update.bind_text(1, state)
      .bind_text(2, utc::to_rfc3339_millis(std::chrono::system_clock::now()))
      .bind_text_or_null(3, reason)
      .bind_text(4, session_id);
  update.run();
  // Nothing changed: already closed (fine, closing twice is allowed) or unknown (a bug).
  if (sqlite3_changes(db_) == 0 && !session_exists(db_, session_id, operation)) {
    throw_no_such_session(operation);
  }
}

std::optional<SessionRecord> Store::find_session(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(
      db_, "SELECT " + std::string(kSessionColumns) + " FROM sessions s WHERE s.id = ?",
      "Failed to look up session \"" + session_id + "\"");
  query.bind_text(1, session_id);
  if (!query.step()) return std::nullopt;
  return read_session_row(query);
}

std::vector<SessionRecord> Store::list_sessions(bool include_closed, std::size_t limit) {
  std::lock_guard lock(mutex_);
  // Newest first; rowid breaks ties between sessions opened in the same millisecond.
  SqliteStatement query(db_,
                        "SELECT " + std::string(kSessionColumns) + " FROM sessions s " +
                            (include_closed ? "" : "WHERE s.state = 'open' ") +
                            "ORDER BY s.opened_at DESC, s.rowid DESC LIMIT ?",
                        "Failed to list sessions");
  query.bind_integer(1, limit == 0 ? -1 : to_sql_integer(limit));  // 0: no limit
  std::vector<SessionRecord> sessions;
  while (query.step()) sessions.push_back(read_session_row(query));
  return sessions;
}

}  // namespace kg::store
