// GET /v1/sessions/{id}/api_calls (docs/daemon-api.md): what the daemon writes comes back equal
// through `kode-gopher api-calls`' reading, strings a program chose stay JSON strings, and an
// answer out of shape is refused naming the member.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/session_api_calls.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

SessionApiCalls decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return decode_session_api_calls(read.document);
}

AuditedApiCall forwarded() {
  AuditedApiCall c;
  c.id = 7;
  c.call_id = 3;
  c.recorded_at = "2026-05-01T10:00:00.123Z";
  c.host = "storage.googleapis.com";
  c.http_method = "GET";
  c.service = "storage";
  c.method = "storage.objects.list";
  c.resource = "b/logs/o";
  c.project = "p-1";
  c.buckets = {"logs"};
  c.read = true;
  c.http_status = 200;
  c.request_bytes = 120;
  c.response_bytes = 4096;
  c.duration_us = 1830;
  return c;
}

}  // namespace

TEST_CASE("a session's api_calls survive encode and decode unchanged") {
  SessionApiCalls answer;
  answer.session_id = "s-42";
  answer.count = 3;
  answer.refused = 1;
  answer.dropped = 5;
  AuditedApiCall grpc;
  grpc.id = 8;
  grpc.call_id = 3;
  grpc.host = "pubsub.googleapis.com";
  grpc.http_method = "POST";
  grpc.grpc = true;
  grpc.service = "pubsub";
  grpc.method = "google.pubsub.v1.Publisher/Publish";
  grpc.billing_project = "billing-1";
  grpc.http_status = 200;
  grpc.grpc_status = 7;
  grpc.refused_rule = "read_only";
  grpc.refusal = "kode-gopher API policy: read-only refuses Publish";
  answer.api_calls = {forwarded(), grpc};
  const std::string text = encode_session_api_calls(answer);
  CHECK(decode_text(text) == answer);
  CHECK(text.starts_with(R"({"session_id":"s-42","count":3,"refused":1,"dropped":5,"api_calls":[)"
                         R"({"id":7,"call_id":3,"recorded_at":"2026-05-01T10:00:00.123Z",)"
                         R"("host":"storage.googleapis.com","http_method":"GET","grpc":false,)"
                         R"("service":"storage","method":"storage.objects.list",)"
                         R"("resource":"b/logs/o","project":"p-1","buckets":["logs"],"read":true,)"
                         R"("http_status":200,"request_bytes":120,)"));
  // Empty members are left out, and the grpc status only when one came.
  CHECK(text.find(R"("grpc_status":7,"refused":"read_only")") != std::string::npos);
  CHECK(text.find(R"("billing_project":"")") == std::string::npos);

  // None recorded: an empty list, not an absent one.
  const SessionApiCalls none{"s-1", 0, 0, 0, {}};
  CHECK(encode_session_api_calls(none) ==
        R"({"session_id":"s-1","count":0,"refused":0,"dropped":0,"api_calls":[]})");
  CHECK(decode_text(encode_session_api_calls(none)) == none);
}

TEST_CASE("a program's bytes in a request stay a valid JSON string") {
  SessionApiCalls answer;
  answer.session_id = "s-1";
  AuditedApiCall odd = forwarded();
  odd.resource = std::string("b/x\"\xff/o", 7);
  odd.buckets = {std::string("a\xfe", 2)};
  answer.api_calls = {odd};
  const auto decoded = decode_text(encode_session_api_calls(answer));
  REQUIRE(decoded.api_calls.size() == 1);
  CHECK(decoded.api_calls[0].resource == "b/x\"\xEF\xBF\xBD/o");
  CHECK(decoded.api_calls[0].buckets == std::vector<std::string>{"a\xEF\xBF\xBD"});
}

TEST_CASE("an api_calls answer out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_text("[]"), "the daemon's api_calls answer is not a JSON object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"count": "3"})"),
                       "the daemon's api_calls answer has \"count\" that is not a whole number",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"api_calls": [{"id": 1}, {"http_status": "ok"}]})"),
                       "the daemon's api_calls answer has \"api_calls[1].http_status\" that is "
                       "not an integer",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"api_calls": [{"buckets": [1]}]})"),
                       "the daemon's api_calls answer has \"api_calls[0].buckets[0]\" that is "
                       "not a string",
                       kg::wire::MalformedMessage);
}
