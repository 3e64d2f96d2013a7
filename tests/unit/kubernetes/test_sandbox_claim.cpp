// SandboxClaim and Sandbox JSON: the claim the provider creates, its lease patch, and what it
// reads back (binding, conditions, terminal reasons), in the shapes of agent-sandbox v1.0.1.
#include <doctest/doctest.h>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "sandbox_claim.hpp"
#include "../../support/test_json.hpp"

using namespace kg::sandbox;

namespace {

std::string at(const rapidjson::Document& doc, const char* pointer) {
  const auto* value = rapidjson::Pointer(pointer).Get(doc);
  REQUIRE(value != nullptr);
  REQUIRE(value->IsString());
  return value->GetString();
}

// 2026-12-03T11:00:00Z
const auto kNoon = std::chrono::system_clock::from_time_t(1796295600);

}  // namespace

TEST_CASE("a new claim: generateName, both labels, the session, the warm pool and the lease") {
  const std::string body = claim_body({.warm_pool = "kode-gopher-pool",
                                       .daemon_id = "team-daemon",
                                       .session_id = "s-42",
                                       .shutdown_time = kNoon});
  kg::json::ReadJson doc_read = kg::test::read_test_json(body);
  rapidjson::Document& doc = doc_read.document;
  REQUIRE_FALSE(doc_read.refused.has_value());
  CHECK(at(doc, "/apiVersion") == "extensions.agents.x-k8s.io/v1beta1");
  CHECK(at(doc, "/kind") == "SandboxClaim");
  CHECK(at(doc, "/metadata/generateName") == "sandbox-claim-");
  CHECK(at(doc, "/metadata/labels/agents.x-k8s.io~1created-by") == "kode-gopher");
  CHECK(at(doc, "/metadata/labels/kode-gopher~1daemon-id") == "team-daemon");
  CHECK(at(doc, "/metadata/annotations/kode-gopher~1session-id") == "s-42");
  CHECK(at(doc, "/spec/warmPoolRef/name") == "kode-gopher-pool");
  CHECK(at(doc, "/spec/lifecycle/shutdownTime") == "2026-12-03T11:00:00Z");
  CHECK(at(doc, "/spec/lifecycle/shutdownPolicy") == "Delete");
  CHECK(doc["metadata"].FindMember("name") == doc["metadata"].MemberEnd());

  // A warm sandbox belongs to no session yet: no annotation.
  const std::string warm = claim_body(
      {.warm_pool = "p", .daemon_id = "d", .session_id = "", .shutdown_time = kNoon});
  CHECK(warm.find("annotations") == std::string::npos);
}

TEST_CASE("the lease patch moves only the lifecycle") {
  CHECK(lease_patch_body(kNoon + std::chrono::minutes(10)) ==
        R"({"spec":{"lifecycle":{"shutdownTime":"2026-12-03T11:10:00Z","shutdownPolicy":"Delete"}}})");
}

TEST_CASE("the label selector of this daemon's claims is URL-encoded") {
  CHECK(daemon_claims_selector("team-daemon") ==
        "agents.x-k8s.io%2Fcreated-by%3Dkode-gopher%2Ckode-gopher%2Fdaemon-id%3Dteam-daemon");
}

TEST_CASE("a claim not yet bound, then bound with its sandbox's service and pod IPs") {
  const auto pending = parse_claim(R"({"metadata":{"name":"sandbox-claim-x7k2p"},
      "spec":{"warmPoolRef":{"name":"kode-gopher-pool"}}})");
  CHECK(pending.name == "sandbox-claim-x7k2p");
  CHECK(pending.sandbox_name.empty());
  CHECK_FALSE(pending.ready.has_value());
  CHECK_FALSE(claim_failure(pending, "ns", "kode-gopher-pool").has_value());

  const auto bound = parse_claim(R"({"metadata":{"name":"sandbox-claim-x7k2p"},
      "status":{"sandbox":{"name":"kode-gopher-pool-abcde",
                           "serviceFQDN":"kode-gopher-pool-abcde.ns.svc.cluster.local",
                           "podIPs":["10.0.0.7"]},
                "conditions":[{"type":"Ready","status":"True","reason":"SandboxReady",
                               "message":"","lastTransitionTime":"2026-12-03T11:00:00Z"}]}})");
  CHECK(bound.sandbox_name == "kode-gopher-pool-abcde");
  CHECK(bound.service_fqdn == "kode-gopher-pool-abcde.ns.svc.cluster.local");
  CHECK(bound.pod_ips == std::vector<std::string>{"10.0.0.7"});
  REQUIRE(bound.ready.has_value());
  CHECK(bound.ready->status == "True");
  CHECK_FALSE(claim_failure(bound, "ns", "kode-gopher-pool").has_value());
}

TEST_CASE("a missing warm pool or template is named, with what to do") {
  const auto no_pool = parse_claim(R"({"metadata":{"name":"c1"},"status":{"conditions":[
      {"type":"Ready","status":"False","reason":"WarmPoolNotFound",
       "message":"SandboxWarmPool \"nope\" not found"}]}})");
  const auto failure = claim_failure(no_pool, "team", "nope");
  REQUIRE(failure.has_value());
  CHECK(failure->starts_with("SandboxWarmPool \"nope\" does not exist in namespace team"));
  CHECK(failure->find("set [kubernetes] warm_pool and namespace") != std::string::npos);

  const auto no_template = parse_claim(R"({"metadata":{"name":"c1"},"status":{"conditions":[
      {"type":"Ready","status":"False","reason":"TemplateNotFound","message":"tmpl"}]}})");
  REQUIRE(claim_failure(no_template, "team", "pool").has_value());
  CHECK(claim_failure(no_template, "team", "pool")->find("SandboxTemplate of warm pool \"pool\"") !=
        std::string::npos);
}

TEST_CASE("terminal reasons end the wait; other False reasons do not") {
  for (const char* reason : {"InvalidMetadata", "EnvVarsInjectionRejected", "VolumeClaimTemplatesError",
                             "ClaimExpired", "SandboxExpired"}) {
    CAPTURE(reason);
    const auto claim = parse_claim(std::string(R"({"metadata":{"name":"c9"},"status":{"conditions":[
        {"type":"Ready","status":"False","reason":")") + reason + R"(","message":"why"}]}})");
    const auto failure = claim_failure(claim, "ns", "pool");
    REQUIRE(failure.has_value());
    CHECK(failure->find(reason) != std::string::npos);
    CHECK(failure->find("SandboxClaim c9 in namespace ns") != std::string::npos);
    CHECK(failure->find("(why)") != std::string::npos);
  }
  for (const char* reason : {"SandboxNotReady", "ReconcilerError", "AdoptionConflict", "SandboxCreatePending"}) {
    CAPTURE(reason);
    const auto claim = parse_claim(std::string(R"({"metadata":{"name":"c9"},"status":{"conditions":[
        {"type":"Ready","status":"False","reason":")") + reason + R"("}]}})");
    CHECK_FALSE(claim_failure(claim, "ns", "pool").has_value());
  }
  const auto deleting = parse_claim(R"({"metadata":{"name":"c9","deletionTimestamp":"2026-12-03T11:00:00Z"}})");
  CHECK(deleting.deleting);
  CHECK(claim_failure(deleting, "ns", "pool") == "SandboxClaim c9 in namespace ns is being deleted");
}

TEST_CASE("a Sandbox: Ready condition, service FQDN, pod IPs") {
  const auto starting = parse_sandbox(R"({"metadata":{"name":"sb"},"status":{"conditions":[
      {"type":"Ready","status":"False","reason":"DependenciesNotReady","message":"Pod is Pending"}]}})");
  CHECK_FALSE(starting.ready);
  REQUIRE(starting.ready_condition.has_value());
  CHECK(starting.ready_condition->message == "Pod is Pending");
  const auto ready = parse_sandbox(R"({"metadata":{"name":"sb"},"status":{
      "serviceFQDN":"sb.ns.svc.cluster.local","podIPs":["127.0.0.5"],
      "conditions":[{"type":"Ready","status":"True","reason":"DependenciesReady"}]}})");
  CHECK(ready.ready);
  CHECK(ready.service_fqdn == "sb.ns.svc.cluster.local");
  CHECK(ready.pod_ips == std::vector<std::string>{"127.0.0.5"});
  CHECK_THROWS(parse_sandbox("[]"));
  CHECK_THROWS(parse_claim("not json"));
}

TEST_CASE("a sandbox whose pod ended or that expired fails at once; a starting one does not") {
  for (const char* reason : {"PodFailed", "PodSucceeded"}) {
    CAPTURE(reason);
    const auto ended = parse_sandbox(std::string(R"({"metadata":{"name":"sb"},"status":{"conditions":[
        {"type":"Ready","status":"False","reason":"DependenciesNotReady"},
        {"type":"Finished","status":"True","reason":")") + reason + R"(","message":"exit 1"}]}})");
    const auto failure = sandbox_failure(ended, "ns");
    REQUIRE(failure.has_value());
    CHECK(failure->find("Sandbox sb in namespace ns: its pod ended before it was ready") == 0);
    CHECK(failure->find(reason) != std::string::npos);
    CHECK(failure->find("(exit 1)") != std::string::npos);
    CHECK(failure->find("kubectl -n ns describe sandbox sb") != std::string::npos);
  }
  const auto expired = parse_sandbox(R"({"metadata":{"name":"sb"},"status":{"conditions":[
      {"type":"Ready","status":"False","reason":"SandboxExpired"}]}})");
  REQUIRE(sandbox_failure(expired, "ns").has_value());
  CHECK(sandbox_failure(expired, "ns")->find("expired (SandboxExpired)") != std::string::npos);
  const auto starting = parse_sandbox(R"({"metadata":{"name":"sb"},"status":{"conditions":[
      {"type":"Ready","status":"False","reason":"DependenciesNotReady"},
      {"type":"Finished","status":"False","reason":"PodRunning"}]}})");
  CHECK_FALSE(sandbox_failure(starting, "ns").has_value());
  CHECK_FALSE(sandbox_failure(parse_sandbox(R"({"metadata":{"name":"sb"}})"), "ns").has_value());
}

TEST_CASE("list names, a warm pool's template and a template's runtime class") {
  CHECK(parse_item_names(R"({"kind":"SandboxClaimList","items":[{"metadata":{"name":"a"}},
      {"metadata":{"name":"b"}}]})") == std::vector<std::string>{"a", "b"});
  CHECK(parse_item_names(R"({"items":[]})").empty());
  CHECK(parse_warm_pool_template(R"({"spec":{"replicas":2,"sandboxTemplateRef":{"name":"tmpl"}}})") == "tmpl");
  CHECK(parse_template_runtime_class(
            R"({"spec":{"podTemplate":{"spec":{"runtimeClassName":"gvisor","containers":[]}}}})") == "gvisor");
  CHECK(parse_template_runtime_class(R"({"spec":{"podTemplate":{"spec":{}}}})").empty());
}
