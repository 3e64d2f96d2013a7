// Store: opening the database (directories, pragmas, migrations) and closing it.
// Sessions, calls and stats live in store_sessions.cpp, store_calls.cpp and store_stats.cpp.
#include "store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "sqlite_statement.hpp"
#include "store_schema.hpp"

namespace kg::store {
namespace {

// Creates the missing directories above the database file, private to this user (0700):
// the database records what every agent ran.
void create_parent_directories(const std::string& db_path, const std::string& operation) {
  namespace fs = std::filesystem;
  std::vector<fs::path> missing;
  for (fs::path dir = fs::path(db_path).parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    std::error_code error;
    if (fs::exists(dir, error)) break;
    missing.push_back(dir);
  }
  for (auto dir = missing.rbegin(); dir != missing.rend(); ++dir) {
    if (::mkdir(dir->c_str(), 0700) == 0 || errno == EEXIST) continue;
    throw StoreError(operation + ": cannot create directory " + dir->string() + ": " +
                     std::strerror(errno));
  }
}

}  // namespace

Store::Store(const std::string& db_path)
    : path_(db_path), statements_(std::make_unique<StatementCache>()) {
  const std::string operation = "Failed to open database " + path_;
  create_parent_directories(path_, operation);
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(operation + ": " + reason);
  }
  try {
    execute_sql(db_, "PRAGMA busy_timeout = 5000", operation);
    execute_sql(db_, "PRAGMA foreign_keys = ON", operation);
    // Before anything that writes: a database from a newer kode-gopherd is left untouched.
    migrate_to_newest_schema(db_, path_);
    execute_sql(db_, "PRAGMA journal_mode = WAL", operation);
    execute_sql(db_, "PRAGMA synchronous = NORMAL", operation);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Store::~Store() {
  statements_->clear();  // a connection with unfinalized statements does not close
  sqlite3_close(db_);
}

int Store::schema_version() {
  std::lock_guard lock(mutex_);
  return read_user_version(db_, "Failed to read the schema version of database " + path_);
}

}  // namespace kg::store
