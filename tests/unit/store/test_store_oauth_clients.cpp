// The oauth_clients rows behind open dynamic registration: a registration no sign-in has used
// waits at most a day, only so many wait at once, one that issued a code is kept; and the
// migration that adds last_used_at keeps every client registered before it.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_schema.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::TempDir;

constexpr std::int64_t kDay = 86400;

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
  CHECK(store.insert_oauth_client(client("a", t0), 2, kDay));
  CHECK(store.insert_oauth_client(client("b", t0 + 10), 2, kDay));
  SUBCASE("a third waiting registration is refused, and nothing of it is stored") {
    CHECK_FALSE(store.insert_oauth_client(client("c", t0 + 20), 2, kDay));
    CHECK_FALSE(store.find_oauth_client("c").has_value());
    CHECK(store.find_oauth_client("a").has_value());
  }
  SUBCASE("a registration used by a sign-in no longer counts, and outlives the day") {
    store.mark_oauth_client_used("a", t0 + 30);
    CHECK(store.insert_oauth_client(client("c", t0 + 40), 2, kDay));
    CHECK(store.insert_oauth_client(client("d", t0 + kDay + 15), 2, kDay));  // b expired
    CHECK(store.find_oauth_client("a").has_value());
    CHECK_FALSE(store.find_oauth_client("b").has_value());
    CHECK(store.find_oauth_client("c").has_value());
    CHECK(store.find_oauth_client("a")->last_used_at == t0 + 30);
    CHECK(store.find_oauth_client("c")->last_used_at == 0);
  }
  SUBCASE("a refused registration still drops the expired ones") {
    CHECK_FALSE(store.insert_oauth_client(client("c", t0 + 20), 2, kDay));
    CHECK(store.insert_oauth_client(client("c", t0 + kDay + 5), 2, kDay));  // a expired
    CHECK_FALSE(store.find_oauth_client("a").has_value());
    CHECK(store.find_oauth_client("b").has_value());
  }
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
  CHECK_FALSE(store.insert_oauth_client(client("new", 1000 + 10 * kDay), 0, kDay));
  const auto old = store.find_oauth_client("old");
  REQUIRE(old.has_value());
  CHECK(old->redirect_uris == std::vector<std::string>{"https://claude.ai/cb"});
  CHECK(old->last_used_at == 1000);
}

}  // namespace
}  // namespace kg::store
