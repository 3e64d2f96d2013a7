// /metrics' egress numbers from SQLite (docs/metrics.md): the egress proxy's refusals by kind,
// summed over calls (a call with runtime auto adds its second run's), and the audited API
// requests by service and verdict, with the service labels bounded: the first
// kMaxApiServiceLabels services ever seen keep their own, later ones count as one.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::TempDir;

ApiCallRecord request(std::int64_t call, const std::string& service, const std::string& rule = {}) {
  ApiCallRecord r;
  r.call_id = call;
  r.session_id = "s-1";
  r.host = service + ".googleapis.com";
  r.http_method = "GET";
  r.service = service;
  r.method = service + ".get";
  r.refused_rule = rule;
  r.http_status = rule.empty() ? 200 : 403;
  return r;
}

TEST_CASE("egress refusals are summed by kind over calls and runs") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  CHECK(store.call_metrics().egress_refusals.empty());
  const auto first = store.begin_call(test::new_call("s-1"));
  const auto second = store.begin_call(test::new_call("s-1"));
  store.record_egress_refusals(first, {{"host_not_allowed", 2}, {"ip_literal", 1}});
  store.record_egress_refusals(first, {{"host_not_allowed", 3}});  // the second run of auto
  store.record_egress_refusals(second, {{"address_not_public", 4}});
  store.record_egress_refusals(second, {});
  const auto refusals = store.call_metrics().egress_refusals;
  REQUIRE(refusals.size() == 3);
  CHECK(refusals[0] == std::pair<std::string, std::uint64_t>{"address_not_public", 4});
  CHECK(refusals[1] == std::pair<std::string, std::uint64_t>{"host_not_allowed", 5});
  CHECK(refusals[2] == std::pair<std::string, std::uint64_t>{"ip_literal", 1});
  CHECK_THROWS_AS(store.record_egress_refusals(999, {{"ip_literal", 1}}), StoreError);
}

TEST_CASE("API requests are counted by service and verdict, past the label bound as one") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  const auto call = store.begin_call(test::new_call("s-1"));
  store.record_api_calls(call, {request(call, "storage"), request(call, "storage"),
                                request(call, "storage", "read_only"), request(call, "bigquery")},
                         0);
  auto counts = store.call_metrics().api_calls;
  REQUIRE(counts.size() == 3);
  CHECK((counts[0].service == "bigquery" && counts[0].rule.empty() && counts[0].count == 1));
  CHECK((counts[1].service == "storage" && counts[1].rule.empty() && counts[1].count == 2));
  CHECK((counts[2].service == "storage" && counts[2].rule == "read_only" && counts[2].count == 1));

  // A program asking for many made-up services: two are seen already, so 48 more keep their
  // names and the rest are one label, which only grows.
  std::vector<ApiCallRecord> many;
  for (int i = 0; i < 60; ++i) many.push_back(request(call, "made-up-" + std::to_string(100 + i)));
  store.record_api_calls(call, many, 0);
  store.record_api_calls(call, {request(call, "storage")}, 0);  // an early one keeps its own
  counts = store.call_metrics().api_calls;
  std::uint64_t other = 0, named = 0, storage = 0;
  for (const auto& count : counts) {
    if (count.service == kOtherService) {
      other += count.count;
    } else if (count.service.starts_with("made-up-")) {
      ++named;
      CHECK(count.service < "made-up-148");
    } else if (count.service == "storage" && count.rule.empty()) {
      storage = count.count;
    }
  }
  CHECK(named == kMaxApiServiceLabels - 2);
  CHECK(other == 60 - (kMaxApiServiceLabels - 2));
  CHECK(storage == 3);
}

}  // namespace
}  // namespace kg::store
