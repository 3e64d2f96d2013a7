// Helpers for the store tests: a temporary directory removed afterwards, record builders, and
// a second, independent sqlite3 connection to look at (or prepare) a database behind the Store.
#pragma once

#include "../../support/temp_dir.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "store.hpp"
#include "store_schema.hpp"

namespace kg::store::test {

inline SessionRecord new_session(const std::string& id, const std::string& runtime = "compiled-go",
                                 const std::string& client = "cli",
                                 const std::string& provider = "local") {
  SessionRecord session;
  session.id = id;
  session.client = client;
  session.provider = provider;
  session.runtime = runtime;
  return session;
}

inline CallStart new_call(const std::string& session_id, const std::string& runtime = "compiled-go",
                          const std::string& code_sha256 = std::string(64, 'a'),
                          std::uint64_t input_bytes = 100) {
  CallStart call;
  call.session_id = session_id;
  call.runtime = runtime;
  call.code_sha256 = code_sha256;
  call.input_bytes = input_bytes;
  return call;
}

// Named per suite, so a leftover folder says which tests made it.
class TempDir : public kg::test::TempDir {
 public:
  TempDir() : kg::test::TempDir("kg-store-test-") {}
};

// Runs `sql` on its own connection and returns the first column of the first row ("" if none).
inline std::string query_text(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) {
    const std::string reason = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("test cannot open " + db_path + ": " + reason);
  }
  sqlite3_stmt* statement = nullptr;
  std::string result;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    const std::string reason = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("test cannot run " + sql + ": " + reason);
  }
  if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0) != nullptr) {
    result = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return result;
}

// Writes a database as an older release left it: the first `version` migrations, then `rows`
// (SQL), at PRAGMA user_version `version`. Throws when SQLite refuses.
inline void write_database_at_version(const std::string& db_path, std::size_t version,
                                      const std::string& rows) {
  std::string sql;
  for (std::size_t i = 0; i < version; ++i) sql += schema_migrations()[i];
  sql += rows + "PRAGMA user_version = " + std::to_string(version) + ";";
  sqlite3* db = nullptr;
  const bool opened = sqlite3_open(db_path.c_str(), &db) == SQLITE_OK;
  char* error = nullptr;
  const bool written = opened && sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  const std::string reason = error != nullptr ? error : sqlite3_errmsg(db);
  sqlite3_free(error);
  sqlite3_close(db);
  if (!written) throw std::runtime_error("test cannot write " + db_path + ": " + reason);
}

// "2026-12-02T09:00:00.123Z": digits where digits belong, the separators in place.
inline bool looks_like_rfc3339_millis(const std::string& text) {
  const std::string shape = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (text.size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (shape[i] == 'd' ? !digit : text[i] != shape[i]) return false;
  }
  return true;
}

}  // namespace kg::store::test
