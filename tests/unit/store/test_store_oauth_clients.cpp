// The oauth_clients rows behind open dynamic registration: a registration no sign-in has used
// waits at most a day, one nobody started a sign-in with at most ten minutes, only so many wait
// at once, one that issued a code is kept; and the migrations that add last_used_at and
// sign_in_started_at keep every client registered before them.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_schema.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::TempDir;

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kTenMinutes = 600;

OAuthClientRecord client(const std::string& id, std::int64_t created_at) {
  OAuthClientRecord record;
  record.client_id = id;
  record.client_name = "client " + id;
  record.redirect_uris = {"http://127.0.0.1:9/cb"};
  record.created_at = created_at;
  return record;
}

TEST_CASE("unused registrations are capped and expire; a used one is kept") {
  TempDir dir;
  Store store(dir / "kg.db");
  const std::int64_t t0 = 1'800'000'000;
  CHECK(store.insert_oauth_client(client("a", t0), 2, kDay, kDay));
  CHECK(store.insert_oauth_client(client("b", t0 + 10), 2, kDay, kDay));
  SUBCASE("a third waiting registration is refused, and nothing of it is stored") {
    CHECK_FALSE(store.insert_oauth_client(client("c", t0 + 20), 2, kDay, kDay));
    CHECK_FALSE(store.find_oauth_client("c").has_value());
    CHECK(store.find_oauth_client("a").has_value());
  }
  SUBCASE("a registration used by a sign-in no longer counts, and outlives the day") {
    store.mark_oauth_client_used("a", t0 + 30);
    CHECK(store.insert_oauth_client(client("c", t0 + 40), 2, kDay, kDay));
    CHECK(store.insert_oauth_client(client("d", t0 + kDay + 15), 2, kDay, kDay));  // b expired
    CHECK(store.find_oauth_client("a").has_value());
    CHECK_FALSE(store.find_oauth_client("b").has_value());
    CHECK(store.find_oauth_client("c").has_value());
    CHECK(store.find_oauth_client("a")->last_used_at == t0 + 30);
    CHECK(store.find_oauth_client("c")->last_used_at == 0);
  }
  SUBCASE("a refused registration still drops the expired ones") {
    CHECK_FALSE(store.insert_oauth_client(client("c", t0 + 20), 2, kDay, kDay));
    CHECK(store.insert_oauth_client(client("c", t0 + kDay + 5), 2, kDay, kDay));  // a expired
    CHECK_FALSE(store.find_oauth_client("a").has_value());
    CHECK(store.find_oauth_client("b").has_value());
  }
}

TEST_CASE("a registration nobody started a sign-in with is dropped after ten minutes") {
  TempDir dir;
  Store store(dir / "kg.db");
  const std::int64_t t0 = 1'800'000'000;
  CHECK(store.insert_oauth_client(client("idle", t0), 1000, kDay, kTenMinutes));
  CHECK(store.insert_oauth_client(client("started", t0), 1000, kDay, kTenMinutes));
  store.mark_oauth_client_sign_in_started("started", t0 + 60);
  CHECK(store.find_oauth_client("started")->sign_in_started_at == t0 + 60);
  CHECK(store.find_oauth_client("idle")->sign_in_started_at == 0);
  CHECK(store.insert_oauth_client(client("later", t0 + kTenMinutes + 1), 1000, kDay, kTenMinutes));
  CHECK_FALSE(store.find_oauth_client("idle").has_value());
  CHECK(store.find_oauth_client("started").has_value());  // a day, as before
  CHECK(store.insert_oauth_client(client("next day", t0 + kDay + 1), 1000, kDay, kTenMinutes));
  CHECK_FALSE(store.find_oauth_client("started").has_value());
}

TEST_CASE("clients registered before schema 6 are kept as used") {
  TempDir dir;
  const auto db = dir / "kg.db";
  test::write_database_at_version(db, 5,
                                  "INSERT INTO oauth_clients (client_id, client_name, "
                                  "redirect_uris, created_at) VALUES ('old', 'Claude', "
                                  "'https://claude.ai/cb', 1000);");
  Store store(db);
  CHECK(store.schema_version() == static_cast<int>(schema_migrations().size()));
  // Far later, with room for no waiting registration at all: the old client is neither
  // dropped nor counted.
  CHECK_FALSE(store.insert_oauth_client(client("new", 1000 + 10 * kDay), 0, kDay, kDay));
  const auto old = store.find_oauth_client("old");
  REQUIRE(old.has_value());
  CHECK(old->redirect_uris == std::vector<std::string>{"https://claude.ai/cb"});
  CHECK(old->last_used_at == 1000);
  CHECK(old->sign_in_started_at == 1000);
}

TEST_CASE("clients registered before schema 7 count as having started a sign-in") {
  TempDir dir;
  const auto db = dir / "kg.db";
  test::write_database_at_version(db, 6,
                                  "INSERT INTO oauth_clients (client_id, client_name, "
                                  "redirect_uris, created_at, last_used_at) VALUES ('waiting', "
                                  "'Claude', 'https://claude.ai/cb', 1000, 0);");
  Store store(db);
  CHECK(store.schema_version() == static_cast<int>(schema_migrations().size()));
  CHECK(store.insert_oauth_client(client("new", 1000 + 2 * kTenMinutes), 10, kDay, kTenMinutes));
  const auto waiting = store.find_oauth_client("waiting");
  REQUIRE(waiting.has_value());
  CHECK(waiting->sign_in_started_at == 1000);
}

}  // namespace
}  // namespace kg::store
