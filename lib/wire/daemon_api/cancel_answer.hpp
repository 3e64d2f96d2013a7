// The answer of POST /v1/sessions/{id}/cancel (docs/daemon-api.md, "Cancellation"):
// {"cancelled": true|false}, whether a running call was stopped. Written by the daemon's API,
// read by the MCP server's session link, which stops waiting itself when the daemon had nothing
// to cancel. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace kg::wire::daemon_api {

struct CancelAnswer {
  bool cancelled = false;
  bool operator==(const CancelAnswer&) const = default;
};

std::string encode_cancel_answer(const CancelAnswer& answer);

// Reads an answer parsed within json::kDaemonAnswerLimits; an absent "cancelled" is false.
// Throws MalformedMessage when it is not an object, or "cancelled" is not true or false.
CancelAnswer decode_cancel_answer(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
