#include "token_answer.hpp"


#include "credentials_plugin.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"
#include "utc_time.hpp"

namespace kg::google_oauth {
namespace {

using plugin::CredentialsError;

std::string shown_body(const std::string& body) {
  std::string shown = body.substr(0, 300);
  for (char& c : shown) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return shown;
}

MintedToken checked(const HttpCall& call, std::string value, SystemTime expiry, SystemTime now) {
  if (value.empty()) {
    throw CredentialsError(call.what + ": " + call.shown_url() + " answered an empty access token");
  }
  if (expiry <= now) {
    throw CredentialsError(call.what + ": " + call.shown_url() +
                           " answered a token that has already expired (expiry " +
                           utc::to_rfc3339(expiry) + ", now " + utc::to_rfc3339(now) +
                           "); check the clocks of this host and of the endpoint");
  }
  return {std::move(value), expiry, {}};
}

}  // namespace

rapidjson::Document parse_answer_object(const HttpCall& call, const HttpAnswer& answer) {
  json::ReadJson read = json::read_json(answer.body, json::kUpstreamReplyLimits);
  if (read.refused) {
    throw CredentialsError(call.what + ": " + call.shown_url() + " answered HTTP " +
                           std::to_string(answer.status) + " with a body that " +
                           read.refused->describe() + ": " + shown_body(answer.body));
  }
  if (!read.document.IsObject()) {
    throw CredentialsError(call.what + ": " + call.shown_url() + " answered JSON that is not an object: " +
                           shown_body(answer.body));
  }
  return std::move(read.document);
}

std::string refusal_message(const HttpCall& call, const HttpAnswer& answer) {
  std::string message = call.what + ": " + call.shown_url() + " answered HTTP " + std::to_string(answer.status);
  const rapidjson::Document doc = json::read_json(answer.body, json::kUpstreamReplyLimits).document;
  if (doc.IsObject()) {
    const auto error = doc.FindMember("error");
    if (error != doc.MemberEnd() && error->value.IsString()) {
      message += std::string(": ") + error->value.GetString();
      if (auto description = json::optional_string_member(doc, "error_description")) message += ": " + *description;
      return message;
    }
    if (error != doc.MemberEnd() && error->value.IsObject()) {
      if (auto status = json::optional_string_member(error->value, "status")) message += ": " + *status;
      if (auto text = json::optional_string_member(error->value, "message")) message += ": " + *text;
      return message;
    }
  }
  if (!answer.body.empty()) message += ": " + shown_body(answer.body);
  return message;
}

MintedToken read_oauth_token_answer(const HttpCall& call, const HttpAnswer& answer, SystemTime now) {
  if (answer.status != 200) throw CredentialsError(refusal_message(call, answer));
  const auto doc = parse_answer_object(call, answer);
  auto token = json::optional_string_member(doc, "access_token");
  if (!token) {
    throw CredentialsError(call.what + ": " + call.shown_url() + " answered no \"access_token\"");
  }
  const auto expires_in = doc.FindMember("expires_in");
  if (expires_in == doc.MemberEnd() || !expires_in->value.IsNumber()) {
    throw CredentialsError(call.what + ": " + call.shown_url() + " answered no numeric \"expires_in\"");
  }
  const auto seconds = static_cast<std::int64_t>(expires_in->value.GetDouble());
  auto minted = checked(call, std::move(*token), now + std::chrono::seconds(seconds), now);
  minted.scope = json::optional_string_member(doc, "scope").value_or("");
  return minted;
}

MintedToken read_iam_token_answer(const HttpCall& call, const HttpAnswer& answer, SystemTime now) {
  if (answer.status != 200) throw CredentialsError(refusal_message(call, answer));
  const auto doc = parse_answer_object(call, answer);
  auto token = json::optional_string_member(doc, "accessToken");
  if (!token) throw CredentialsError(call.what + ": " + call.shown_url() + " answered no \"accessToken\"");
  const auto expire_text = json::optional_string_member(doc, "expireTime");
  const auto expiry = expire_text ? utc::parse_rfc3339(*expire_text) : std::nullopt;
  if (!expiry) {
    throw CredentialsError(call.what + ": " + call.shown_url() +
                           " answered no RFC 3339 \"expireTime\"" +
                           (expire_text ? " (got \"" + *expire_text + "\")" : std::string()));
  }
  return checked(call, std::move(*token), *expiry, now);
}

}  // namespace kg::google_oauth
