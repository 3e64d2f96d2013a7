// Thin RAII over the sqlite3 C API for the Store: a prepared statement that finalizes itself,
// a transaction that rolls back unless committed, and one way to turn a sqlite error into a
// StoreError ("<operation>: <sqlite3_errmsg>"). Used only under the Store's mutex, on the
// thread that holds it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace kg::store {

// Throws StoreError "<operation>: <sqlite3_errmsg(db)>".
[[noreturn]] void throw_sqlite_error(sqlite3* db, std::string_view operation);

// Runs one or more statements that return nothing of interest. Throws StoreError.
void execute_sql(sqlite3* db, const std::string& sql, std::string_view operation);

// SQLite integers are signed 64-bit; larger counters are clamped rather than wrapped.
std::int64_t to_sql_integer(std::uint64_t value);

// Statements prepared once and kept for the connection's life: those every call runs (parsing
// their SQL each time was a third of the daemon's own per-call work). clear() before closing.
class StatementCache {
 public:
  StatementCache() = default;
  ~StatementCache() { clear(); }
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  // The statement for `sql`, prepared on first use. Throws StoreError.
  sqlite3_stmt* get(sqlite3* db, std::string_view sql, std::string_view operation);
  void clear() noexcept;

 private:
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
};

class SqliteStatement {
 public:
  // `operation` prefixes every error ("Failed to record call start"). Throws StoreError.
  SqliteStatement(sqlite3* db, std::string_view sql, std::string operation);
  // The cached statement for `sql`: reset and unbound again when this goes out of scope.
  SqliteStatement(sqlite3* db, StatementCache& cache, std::string_view sql, std::string operation);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters are 1-based, as in the SQL's "?" order.
  SqliteStatement& bind_text(int index, std::string_view text);
  SqliteStatement& bind_text_or_null(int index, std::string_view text);  // "" -> NULL
  SqliteStatement& bind_integer(int index, std::int64_t value);

  // True when a row is ready to read; false when the statement is done. Throws StoreError.
  bool step();
  // Steps a statement that returns no rows. Throws StoreError.
  void run();

  // Columns are 0-based. NULL reads as "" or 0.
  std::string text(int column) const;
  std::int64_t integer(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  std::string operation_;
  bool cached_ = false;  // borrowed from a StatementCache: reset, never finalized
};

// BEGIN IMMEDIATE on construction (take the write lock up front, so a busy database waits in
// busy_timeout instead of failing half-way); ROLLBACK on destruction unless commit() ran.
class SqliteTransaction {
 public:
  SqliteTransaction(sqlite3* db, std::string operation);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;

  void commit();  // throws StoreError

 private:
  sqlite3* db_;
  std::string operation_;
  bool open_ = true;
};

}  // namespace kg::store
