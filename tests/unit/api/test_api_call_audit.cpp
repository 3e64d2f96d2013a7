// The audit's path without the egress proxy: what a proxy reports at the end of a run
// (EgressCallReport) -> classified records -> the SQLite store -> the call's result JSON, as the
// session layer does it (session/api_call_audit.hpp). The proxy's side (that it reports what a
// program really sent) is tested with the proxy; this checks everything after the report.
// Also: a call's "api_policy" as the API server parses it.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include "api_call_audit.hpp"
#include "api_errors.hpp"
#include "execute_request_parser.hpp"
#include "response_json.hpp"
#include "store/store.hpp"
#include "../../support/temp_dir.hpp"
#include "../../support/test_json.hpp"

namespace kg::session {
namespace {

sandbox::ApiExchange exchange(std::string method, std::string path, int status,
                              std::optional<std::string> refusal = std::nullopt) {
  sandbox::ApiExchange e;
  e.request.host = "storage.googleapis.com";
  e.request.http_method = std::move(method);
  e.request.path = std::move(path);
  e.refusal = std::move(refusal);
  e.http_status = status;
  e.request_bytes = 100;
  e.response_bytes = e.refusal ? 0 : 900;
  e.duration_us = 2500;
  return e;
}

struct Fixture {
  kg::test::TempDir dir{"kg-api-audit-"};
  store::Store store{dir / "kg.db"};
  std::int64_t call_id = 0;
  Fixture() {
    store::SessionRecord session;
    session.id = "s-1";
    session.client = "cli";
    session.provider = "local";
    session.runtime = "compiled-go";
    store.insert_session(session);
    call_id = store.begin_call({"s-1", "compiled-go", std::string(64, 'a'), 10});
  }
};

// What the session layer does after a run (SessionManager::record_api_calls).
CallResult audited_call(Fixture& f, const sandbox::EgressCallReport& report,
                        const api_policy::CallApiPolicy& policy) {
  CallResult call;
  call.call_id = f.call_id;
  call.session_id = "s-1";
  auto run = audit_egress_report(report, policy, f.call_id, "s-1");
  f.store.record_api_calls(f.call_id, run.records, run.dropped_by_proxy);
  for (auto& warning : run.warnings) call.result.warnings.push_back(std::move(warning));
  add_to_result(run, call.api_calls, call.api_call_totals);
  return call;
}

rapidjson::Document answer_of(const CallResult& call) {
  auto read = kg::test::read_test_json(api::call_result_json(call));
  REQUIRE_FALSE(read.refused.has_value());
  return std::move(read.document);
}

TEST_CASE("a run's exchanges become records in SQLite and api_calls in the result") {
  Fixture f;
  const auto policy = api_policy::narrow_api_policy({.read_only = true}, {});
  const std::string refusal =
      "kode-gopher API policy: read-only refuses storage.objects.insert on b/b1/o/x";
  sandbox::EgressCallReport report;
  report.exchanges.push_back(exchange("GET", "/storage/v1/b/b1/o?alt=json", 200));
  report.exchanges.push_back(exchange("POST", "/upload/storage/v1/b/b1/o?name=x&uploadType=multipart", 403, refusal));
  sandbox::ApiExchange publish;
  publish.request = {.host = "pubsub.googleapis.com", .http_method = "POST",
                     .path = "/google.pubsub.v1.Publisher/GetTopic", .grpc = true,
                     .request_params = "topic=projects%2Fproj-a%2Ftopics%2Ft"};
  publish.http_status = 200;
  publish.grpc_status = 5;
  report.exchanges.push_back(publish);
  report.exchanges_dropped = 2;
  const CallResult call = audited_call(f, report, policy);

  const auto stored = f.store.list_api_calls(f.call_id);
  REQUIRE(stored.size() == 3);
  CHECK(stored[0].method == "storage.objects.list");
  CHECK(stored[0].refused_rule.empty());
  CHECK(stored[1].method == "storage.objects.insert");
  CHECK(stored[1].resource == "b/b1/o/x");
  CHECK(stored[1].refused_rule == "read_only");
  CHECK(stored[1].refusal == refusal);
  CHECK(stored[2].grpc_status == 5);
  CHECK(stored[2].project == "proj-a");
  CHECK(f.store.find_call(f.call_id)->api_calls_dropped == 2);
  CHECK(f.store.find_session("s-1")->api_calls_refused == 1);

  const auto answer = answer_of(call);
  CHECK(answer["is_error"].GetBool());  // a refusal is a warning
  REQUIRE(answer.HasMember("warnings"));
  CHECK(std::string(answer["warnings"][0].GetString()) == refusal);
  const auto& api = answer["api_calls"];
  CHECK(api["count"].GetUint64() == 5);  // 3 reported + 2 the proxy dropped
  CHECK(api["refused"].GetUint64() == 1);
  CHECK(api["bytes"].GetUint64() == 100 + 900 + 100);  // the refused one answered nothing
  CHECK(api["dropped"].GetUint64() == 2);
  REQUIRE(api["calls"].Size() == 3);
  CHECK(std::string(api["calls"][0]["service"].GetString()) == "storage");
  CHECK(std::string(api["calls"][0]["resource"].GetString()) == "b/b1");
  CHECK(api["calls"][0]["read"].GetBool());
  CHECK(api["calls"][0]["http_status"].GetInt() == 200);
  CHECK_FALSE(api["calls"][0].HasMember("grpc_status"));
  CHECK_FALSE(api["calls"][0].HasMember("refused"));
  CHECK(std::string(api["calls"][1]["refused"].GetString()) == "read_only");
  CHECK(std::string(api["calls"][2]["method"].GetString()) == "google.pubsub.v1.Publisher/GetTopic");
  CHECK(api["calls"][2]["grpc_status"].GetInt() == 5);
}

TEST_CASE("the result's list is bounded; refused requests claim the room first; the store keeps all") {
  Fixture f;
  const auto policy = api_policy::narrow_api_policy({.buckets = {"b1"}}, {});
  sandbox::EgressCallReport report;
  for (int i = 0; i < 60; ++i) report.exchanges.push_back(exchange("GET", "/b1/obj" + std::to_string(i), 200));
  for (int i = 0; i < 7; ++i) {
    report.exchanges.push_back(exchange("GET", "/other/obj" + std::to_string(i), 403,
                                        "kode-gopher API policy: bucket other is not in ... " + std::to_string(i)));
  }
  const CallResult call = audited_call(f, report, policy);
  CHECK(f.store.list_api_calls(f.call_id).size() == 67);
  REQUIRE(call.api_calls.size() == kMaxResultApiCalls);
  CHECK(call.api_calls.back().refused_rule == "buckets");
  CHECK(call.api_calls.front().resource == "b/b1/o/obj0");
  CHECK(call.api_call_totals.count == 67);
  CHECK(call.api_call_totals.refused == 7);
  CHECK(call.api_call_totals.dropped == 17);
  // Five distinct refusals, then one line for them all.
  REQUIRE(call.result.warnings.size() == kMaxRefusalWarnings + 1);
  CHECK(call.result.warnings.back() ==
        "kode-gopher's egress proxy refused 7 API requests in all; "
        "the result's api_calls lists the first, kode-gopher api-calls SESSION every one");
  // A refusal no rule of the policy explains is the proxy's own.
  sandbox::EgressCallReport odd;
  odd.exchanges.push_back(exchange("GET", "/b1/x", 502, "the upstream's certificate failed"));
  CHECK(audit_egress_report(odd, policy, f.call_id, "s-1").records[0].refused_rule == "proxy");
}

TEST_CASE("a call without API requests has no api_calls in its result") {
  Fixture f;
  const CallResult call = audited_call(f, {}, api_policy::narrow_api_policy({}, {}));
  CHECK_FALSE(answer_of(call).HasMember("api_calls"));
  CHECK(f.store.list_api_calls(f.call_id).empty());
}

TEST_CASE("the execute request's api_policy reaches the call; a bad one is a 400 naming it") {
  const auto parsed = api::parse_execute_request(
      R"({"code":"package main","api_policy":{"read_only":true,"projects":["proj-a"],"buckets":["bucket-1","bucket-2"]}})");
  CHECK(parsed.call.api_policy.read_only == true);
  CHECK(parsed.call.api_policy.projects == std::vector<std::string>{"proj-a"});
  CHECK(parsed.call.api_policy.buckets == std::vector<std::string>{"bucket-1", "bucket-2"});
  CHECK_THROWS_WITH_AS(api::parse_execute_request(R"({"code":"x","api_policy":{"projects":["Bad_Project"]}})"),
                       doctest::Contains("\"api_policy\".\"projects\": \"Bad_Project\" is not a project ID"),
                       api::BadRequestError);
  CHECK_THROWS_WITH_AS(api::parse_execute_request(R"({"code":"x","api_policy":{"readonly":true}})"),
                       doctest::Contains("unknown key \"readonly\"; known: read_only, projects, buckets"),
                       api::BadRequestError);
  CHECK_THROWS_WITH_AS(api::parse_execute_request(R"({"code":"x","api_policy":{"buckets":[]}})"),
                       doctest::Contains("\"api_policy\".\"buckets\" is empty"), api::BadRequestError);
}

}  // namespace
}  // namespace kg::session
