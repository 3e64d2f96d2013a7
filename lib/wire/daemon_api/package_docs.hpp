// POST /v1/sessions/{id}/docs (docs/daemon-api.md): the request {"package", "symbol"?} and the
// answer {"package", "symbol"?, "docs"}. Written by the MCP tool lookup_package_docs and read by
// the daemon's API, which answers with the go doc text; team mode's MCP endpoint passes both as
// values. The answer is also the tool's structured result. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>

namespace kg::wire::daemon_api {

struct DocsRequest {
  std::string package;
  std::optional<std::string> symbol;
  bool operator==(const DocsRequest&) const = default;
};

struct DocsAnswer {
  std::string package;
  std::optional<std::string> symbol;
  std::string docs;  // go doc's text, or the short index and suggestions the daemon made
  bool operator==(const DocsAnswer&) const = default;
};

std::string encode_docs_request(const DocsRequest& request);
std::string encode_docs_answer(const DocsAnswer& answer);

// Throw MalformedMessage naming what is out of shape: "package" missing or not a string,
// "symbol" not a string; for the answer also "docs" missing or not a string.
DocsRequest decode_docs_request(const rapidjson::Value& value);
DocsAnswer decode_docs_answer(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
