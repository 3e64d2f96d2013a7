#include "sqlite_statement.hpp"

#include <limits>

#include "store.hpp"

namespace kg::store {

void throw_sqlite_error(sqlite3* db, std::string_view operation) {
  std::string message(operation);
  message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  throw StoreError(message);
}

void execute_sql(sqlite3* db, const std::string& sql, std::string_view operation) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return;
  std::string message(operation);
  message += ": ";
  message += error != nullptr ? error : sqlite3_errmsg(db);
  sqlite3_free(error);
  throw StoreError(message);
}

std::int64_t to_sql_integer(std::uint64_t value) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(value > kMax ? kMax : value);
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql, std::string operation)
    : db_(db), operation_(std::move(operation)) {
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_, nullptr) !=
      SQLITE_OK) {
    throw_sqlite_error(db_, operation_);
  }
}

SqliteStatement::SqliteStatement(sqlite3* db, StatementCache& cache, std::string_view sql,
                                 std::string operation)
    : db_(db), statement_(cache.get(db, sql, operation)), operation_(std::move(operation)),
      cached_(true) {}

SqliteStatement::~SqliteStatement() {
  if (cached_) {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  } else {
    sqlite3_finalize(statement_);
  }
}

sqlite3_stmt* StatementCache::get(sqlite3* db, std::string_view sql, std::string_view operation) {
  if (auto found = statements_.find(sql); found != statements_.end()) return found->second;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &statement, nullptr) != SQLITE_OK) {
    throw_sqlite_error(db, operation);
  }
  statements_.emplace(std::string(sql), statement);
  return statement;
}

void StatementCache::clear() noexcept {
  for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
  statements_.clear();
}

SqliteStatement& SqliteStatement::bind_text(int index, std::string_view text) {
  if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    throw_sqlite_error(db_, operation_);
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind_text_or_null(int index, std::string_view text) {
  if (!text.empty()) return bind_text(index, text);
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) throw_sqlite_error(db_, operation_);
  return *this;
}

SqliteStatement& SqliteStatement::bind_integer(int index, std::int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) {
    throw_sqlite_error(db_, operation_);
  }
  return *this;
}

bool SqliteStatement::step() {
  const int result = sqlite3_step(statement_);
  if (result == SQLITE_ROW) return true;
  if (result == SQLITE_DONE) return false;
  throw_sqlite_error(db_, operation_);
}

void SqliteStatement::run() {
  while (step()) {
  }
}

std::string SqliteStatement::text(int column) const {
  const auto* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)));
}

std::int64_t SqliteStatement::integer(int column) const {
  return sqlite3_column_int64(statement_, column);
}

SqliteTransaction::SqliteTransaction(sqlite3* db, std::string operation)
    : db_(db), operation_(std::move(operation)) {
  execute_sql(db_, "BEGIN IMMEDIATE", operation_);
}

SqliteTransaction::~SqliteTransaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  execute_sql(db_, "COMMIT", operation_);
  open_ = false;
}

}  // namespace kg::store
