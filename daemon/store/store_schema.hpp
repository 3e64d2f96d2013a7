// The store's schema as ordered migrations. Migration i (1-based) takes a database from
// PRAGMA user_version i-1 to i; released migrations never change, new ones are appended.
// Called by the Store constructor only.
#pragma once

#include <sqlite3.h>

#include <span>
#include <string>
#include <string_view>

namespace kg::store {

std::span<const std::string_view> schema_migrations();

// PRAGMA user_version: how many migrations the database has. Throws StoreError "<operation>: ...".
int read_user_version(sqlite3* db, const std::string& operation);

// Applies every migration the database lacks, each in its own transaction together with its
// user_version bump. Throws StoreError naming `path` when the database is newer than this code.
void migrate_to_newest_schema(sqlite3* db, const std::string& path);

}  // namespace kg::store
