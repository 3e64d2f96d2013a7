// Opening: schema, pragmas, reopening, refusing newer databases, unusable paths, timestamps.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

#include "store.hpp"
#include "store_schema.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::query_text;
using test::TempDir;

TEST_CASE("a fresh database has every migration applied, in WAL mode") {
  TempDir dir;
  const auto db = dir / "state/deeper/kg.db";
  {
    Store store(db);
    CHECK(store.schema_version() == static_cast<int>(schema_migrations().size()));
  }
  CHECK(query_text(db, "PRAGMA journal_mode") == "wal");
  CHECK(query_text(db, "PRAGMA user_version") == std::to_string(schema_migrations().size()));
  CHECK(query_text(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                       "WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' "
                       "ORDER BY name)") ==
        "api_calls,api_calls_by_call,api_calls_by_service,api_calls_by_session,"
        "calls,calls_by_session,calls_by_state_runtime,credential_grants,"
        "credential_grants_by_session,egress_refusals,oauth_clients,oauth_clients_unused,oauth_codes,oauth_codes_by_expiry,"
        "oauth_tokens,oauth_tokens_by_expiry,oauth_tokens_by_family,oauth_users,sessions,"
        "sessions_by_opened,sessions_by_owner,sessions_by_state_opened");
}

TEST_CASE("the directories it creates for the database are private") {
  TempDir dir;
  Store store(dir / "state/kg.db");
  struct stat info {};
  REQUIRE(::stat((dir / "state").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0700);
}

TEST_CASE("reopening keeps the data and does not run migrations again") {
  TempDir dir;
  const auto db = dir / "kg.db";
  {
    Store store(db);
    store.insert_session(test::new_session("s-1", "yaegi"));
  }
  // The migrations use plain CREATE TABLE: running them again would fail, not pass silently.
  Store reopened(db);
  CHECK(reopened.schema_version() == static_cast<int>(schema_migrations().size()));
  const auto session = reopened.find_session("s-1");
  REQUIRE(session.has_value());
  CHECK(session->runtime == "yaegi");
}

TEST_CASE("a database from a newer kode-gopherd is refused and left untouched") {
  TempDir dir;
  const auto db = dir / "kg.db";
  query_text(db, "PRAGMA user_version = 999");
  CHECK_THROWS_WITH_AS(Store{db},
                       ("database " + db +
                        " has schema version 999, newer than this kode-gopherd supports (" +
                        std::to_string(schema_migrations().size()) + "); upgrade kode-gopher")
                           .c_str(),
                       StoreError);
  CHECK(query_text(db, "PRAGMA user_version") == "999");
  CHECK(query_text(db, "PRAGMA journal_mode") == "delete");
  CHECK(query_text(db, "SELECT count(*) FROM sqlite_master") == "0");
}

TEST_CASE("a database path whose directory cannot be made is an error naming it") {
  TempDir dir;
  std::ofstream(dir / "plain-file") << "not a directory";
  const auto db = dir / "plain-file/state/kg.db";
  CHECK_THROWS_WITH_AS(Store{db},
                       ("Failed to open database " + db + ": cannot create directory " +
                        dir / "plain-file/state" + ": Not a directory")
                           .c_str(),
                       StoreError);
}

TEST_CASE("a database path that is a directory is an error naming it") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(Store{dir.path()},
                       ("Failed to open database " + dir.path() + ": unable to open database file")
                           .c_str(),
                       StoreError);
}

TEST_CASE("a file that is not a database is an error naming it") {
  TempDir dir;
  const auto db = dir / "kg.db";
  std::ofstream(db) << std::string(4096, 'x');
  CHECK_THROWS_WITH_AS(Store{db},
                       ("Failed to read the schema version of database " + db +
                        ": file is not a database")
                           .c_str(),
                       StoreError);
}

}  // namespace
}  // namespace kg::store
