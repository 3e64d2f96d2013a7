// The daemon API's docs request and answer (POST /v1/sessions/{id}/docs, docs/daemon-api.md):
// what the MCP tool sends and the daemon answers comes back equal, and a body out of shape is
// refused with the message the API answers as bad_request.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/package_docs.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

const rapidjson::Document parsed(const std::string& text) {
  kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return std::move(read.document);
}

}  // namespace

TEST_CASE("a docs request and answer survive encode and decode unchanged") {
  const DocsRequest whole{"cloud.google.com/go/storage", std::nullopt};
  CHECK(decode_docs_request(parsed(encode_docs_request(whole))) == whole);
  CHECK(encode_docs_request(whole) == R"({"package":"cloud.google.com/go/storage"})");
  const DocsRequest symbol{"cloud.google.com/go/storage", "Client.Bucket"};
  CHECK(decode_docs_request(parsed(encode_docs_request(symbol))) == symbol);

  const DocsAnswer answer{"cloud.google.com/go/storage", "Client.Bucket",
                          "func (c *Client) Bucket(name string) *BucketHandle\n"};
  CHECK(decode_docs_answer(parsed(encode_docs_answer(answer))) == answer);
}

TEST_CASE("a docs body out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_docs_request(parsed("[]")), "the body must be a JSON object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_docs_request(parsed("{}")), "\"package\" is required",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_docs_request(parsed(R"({"package": "p", "symbol": 1})")),
                       "\"symbol\" must be a string", kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_docs_answer(parsed(R"({"package": "p"})")), "\"docs\" is required",
                       kg::wire::MalformedMessage);
}
