// Sessions: insert, attach, find, list, close.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::new_call;
using test::new_session;
using test::TempDir;

std::vector<std::string> ids(const std::vector<SessionRecord>& sessions) {
  std::vector<std::string> out;
  for (const auto& session : sessions) out.push_back(session.id);
  return out;
}

TEST_CASE("a session is recorded open, with the store's timestamp") {
  TempDir dir;
  Store store(dir / "kg.db");
  auto record = new_session("s-1", "yaegi", "mcp", "kubernetes");
  record.state = "closed";          // ignored: a new session is open
  record.opened_at = "yesterday";   // ignored: the store sets it
  store.insert_session(record);
  const auto session = store.find_session("s-1");
  REQUIRE(session.has_value());
  CHECK(session->id == "s-1");
  CHECK(session->client == "mcp");
  CHECK(session->provider == "kubernetes");
  CHECK(session->sandbox_id == "");
  CHECK(session->runtime == "yaegi");
  CHECK(session->state == "open");
  CHECK(test::looks_like_rfc3339_millis(session->opened_at));
  CHECK(session->closed_at == "");
  CHECK(session->close_reason == "");
  CHECK(session->calls == 0);
  CHECK_FALSE(store.find_session("s-2").has_value());
}

TEST_CASE("a session id can be recorded once") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  CHECK_THROWS_WITH_AS(store.insert_session(new_session("s-1")),
                       "Failed to record session \"s-1\": UNIQUE constraint failed: sessions.id",
                       StoreError);
}

TEST_CASE("a sandbox is attached to a session") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  store.attach_sandbox("s-1", "sandbox-7");
  CHECK(store.find_session("s-1")->sandbox_id == "sandbox-7");
  CHECK_THROWS_WITH_AS(store.attach_sandbox("s-9", "sandbox-8"),
                       "Failed to attach sandbox to session \"s-9\": no such session", StoreError);
}

TEST_CASE("closing a session records state, time and reason; closing it again changes nothing") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  store.close_session("s-1", "closed", "client closed it");
  const auto closed = store.find_session("s-1");
  REQUIRE(closed.has_value());
  CHECK(closed->state == "closed");
  CHECK(closed->close_reason == "client closed it");
  CHECK(test::looks_like_rfc3339_millis(closed->closed_at));
  CHECK(closed->closed_at >= closed->opened_at);

  store.close_session("s-1", "interrupted", "another reason");
  const auto again = store.find_session("s-1");
  CHECK(again->state == "closed");
  CHECK(again->closed_at == closed->closed_at);
  CHECK(again->close_reason == "client closed it");
}

TEST_CASE("closing refuses unknown sessions and states other than closed and interrupted") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  CHECK_THROWS_WITH_AS(store.close_session("s-9", "closed", ""),
                       "Failed to close session \"s-9\": no such session", StoreError);
  CHECK_THROWS_WITH_AS(store.close_session("s-1", "open", ""),
                       "Failed to close session \"s-1\": state must be closed or interrupted, "
                       "got \"open\"",
                       StoreError);
  store.close_session("s-1", "interrupted", "");
  CHECK(store.find_session("s-1")->state == "interrupted");
  CHECK(store.find_session("s-1")->close_reason == "");
}

TEST_CASE("sessions are listed newest first, open ones only unless asked, up to a limit") {
  TempDir dir;
  Store store(dir / "kg.db");
  for (const auto* id : {"s-1", "s-2", "s-3", "s-4"}) store.insert_session(new_session(id));
  store.close_session("s-2", "closed", "");
  CHECK(ids(store.list_sessions(false, 100)) == std::vector<std::string>{"s-4", "s-3", "s-1"});
  CHECK(ids(store.list_sessions(true, 100)) ==
        std::vector<std::string>{"s-4", "s-3", "s-2", "s-1"});
  CHECK(ids(store.list_sessions(true, 2)) == std::vector<std::string>{"s-4", "s-3"});
  CHECK(ids(store.list_sessions(false, 0)) == std::vector<std::string>{"s-4", "s-3", "s-1"});
}

TEST_CASE("a session counts its calls") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  store.insert_session(new_session("s-2"));
  store.begin_call(new_call("s-1"));
  store.begin_call(new_call("s-1"));
  store.begin_call(new_call("s-2"));
  CHECK(store.find_session("s-1")->calls == 2);
  const auto listed = store.list_sessions(true, 10);
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].id == "s-2");
  CHECK(listed[0].calls == 1);
  CHECK(listed[1].calls == 2);
}

}  // namespace
}  // namespace kg::store
