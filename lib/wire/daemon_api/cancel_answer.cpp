#include "cancel_answer.hpp"

#include "malformed_message.hpp"
#include "member_reader.hpp"

namespace kg::wire::daemon_api {

std::string encode_cancel_answer(const CancelAnswer& answer) {
  return answer.cancelled ? R"({"cancelled":true})" : R"({"cancelled":false})";
}

CancelAnswer decode_cancel_answer(const rapidjson::Value& value) {
  static const MemberReader reader("the daemon's cancel answer");
  if (!value.IsObject()) throw MalformedMessage("the daemon's cancel answer is not a JSON object");
  CancelAnswer answer;
  reader.read(value, "cancelled", "", answer.cancelled);
  return answer;
}

}  // namespace kg::wire::daemon_api
