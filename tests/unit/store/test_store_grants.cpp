// The credential_grants table: every token handed to a sandbox, never the token; the identity a
// session ran as; and the migration that adds them to a database of schema version 1.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include "store.hpp"
#include "store_schema.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::query_text;
using test::TempDir;

GrantRecord grant(const std::string& session, std::int64_t call, const std::string& identity) {
  GrantRecord g;
  g.session_id = session;
  g.call_id = call;
  g.plugin = "creds-adc";
  g.mode = "access-token";
  g.identity = identity;
  g.credential_type = "authorized_user";
  g.scopes = "https://www.googleapis.com/auth/cloud-platform";
  g.expires_at = "2026-12-03T10:00:00Z";
  return g;
}

TEST_CASE("grants are recorded per call, and a session shows the identity it last ran as") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  store.insert_session(test::new_session("s-2"));
  const auto first = store.begin_call(test::new_call("s-1"));
  store.record_grant(grant("s-1", first, "dev@example.com"));
  const auto second = store.begin_call(test::new_call("s-1"));
  store.record_grant(grant("s-1", second, "runner@p.iam.gserviceaccount.com"));

  const auto grants = store.list_grants("s-1");
  REQUIRE(grants.size() == 2);
  CHECK(grants[0].call_id == first);
  CHECK(grants[0].identity == "dev@example.com");
  CHECK(grants[0].scopes == "https://www.googleapis.com/auth/cloud-platform");
  CHECK(grants[0].expires_at == "2026-12-03T10:00:00Z");
  CHECK(test::looks_like_rfc3339_millis(grants[0].granted_at));
  CHECK(grants[1].identity == "runner@p.iam.gserviceaccount.com");
  CHECK(store.find_session("s-1")->identity == "runner@p.iam.gserviceaccount.com");
  CHECK(store.find_session("s-2")->identity.empty());  // ran without credentials
  CHECK(store.list_sessions(true, 0).size() == 2);

  // The record says whose token it was, never what it was.
  CHECK(query_text(dir / "kg.db", "SELECT group_concat(name, ',') FROM pragma_table_info('credential_grants')") ==
        "id,session_id,call_id,plugin,mode,identity,credential_type,scopes,expires_at,granted_at");
}

TEST_CASE("a grant for an unknown call is refused (foreign keys)") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  CHECK_THROWS_AS(store.record_grant(grant("s-1", 42, "dev@example.com")), StoreError);
}

TEST_CASE("a schema version 1 database is migrated to 2 with its sessions and calls kept") {
  TempDir dir;
  const auto db = dir / "kg.db";
  test::write_database_at_version(db, 1,
                                  "INSERT INTO sessions (id, client, provider, runtime, state, "
                                  "opened_at) VALUES ('old', 'cli', 'local', 'compiled-go', "
                                  "'closed', 'x');");
  Store store(db);
  CHECK(store.schema_version() == static_cast<int>(schema_migrations().size()));
  const auto old = store.find_session("old");
  REQUIRE(old.has_value());
  CHECK(old->identity.empty());
  CHECK(store.list_grants("old").empty());
}

}  // namespace
}  // namespace kg::store
