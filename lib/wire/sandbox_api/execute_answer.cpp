#include "execute_answer.hpp"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/Exception.h>

#include <iterator>
#include <sstream>

#include "json_text.hpp"
#include "malformed_message.hpp"

namespace kg::wire::sandbox_api {
namespace {

std::string base64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

// Throws MalformedMessage when `text` is not base64.
std::string from_base64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
  } catch (const Poco::Exception& e) {
    throw MalformedMessage("the sandbox sent it as invalid base64: " + e.displayText());
  }
  return bytes;
}

void write_file(JsonWriter& writer, const FileAfterCommand& file) {
  writer.Key("file");
  writer.StartObject();
  writer.Key("path");
  write_text(writer, file.path);
  writer.Key("exists");
  writer.Bool(file.exists);
  if (!file.error.empty()) {
    writer.Key("error");
    write_text(writer, file.error);
  } else if (file.exists) {
    writer.Key("content_base64");
    write_bytes(writer, base64(file.content));
  }
  writer.EndObject();
}

std::string text_member(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  return member != object.MemberEnd() && member->value.IsString() ? string_of(member->value)
                                                                   : std::string();
}

std::int64_t integer_member(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  return member != object.MemberEnd() && member->value.IsInt64() ? member->value.GetInt64() : 0;
}

bool flag_member(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  return member != object.MemberEnd() && member->value.IsBool() && member->value.GetBool();
}

std::optional<FileAfterCommand> read_file(const rapidjson::Value& answer) {
  const auto member = answer.FindMember("file");
  if (member == answer.MemberEnd() || !member->value.IsObject()) return std::nullopt;
  const rapidjson::Value& object = member->value;
  FileAfterCommand file;
  file.path = text_member(object, "path");
  file.exists = flag_member(object, "exists");
  file.error = text_member(object, "error");
  const auto content = object.FindMember("content_base64");
  if (content != object.MemberEnd() && content->value.IsString()) {
    try {
      file.content = from_base64(string_of(content->value));
    } catch (const MalformedMessage& e) {
      file.error = e.what();
    }
  }
  return file;
}

}  // namespace

std::string encode_execute_answer(const ExecuteAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("stdout");
  write_text(writer, answer.stdout_text);
  writer.Key("stderr");
  write_text(writer, answer.stderr_text);
  writer.Key("exit_code");
  writer.Int(answer.exit_code);
  writer.Key("signal");
  writer.Int(answer.signal);
  writer.Key("timed_out");
  writer.Bool(answer.timed_out);
  writer.Key("cpu_limit_exceeded");
  writer.Bool(answer.cpu_limit_exceeded);
  writer.Key("stdout_truncated");
  writer.Bool(answer.stdout_truncated);
  writer.Key("stderr_truncated");
  writer.Bool(answer.stderr_truncated);
  writer.Key("stdout_discarded_bytes");
  writer.Uint64(answer.stdout_discarded_bytes);
  writer.Key("stderr_discarded_bytes");
  writer.Uint64(answer.stderr_discarded_bytes);
  writer.Key("duration_ms");
  writer.Uint64(answer.duration_ms);
  if (answer.file) write_file(writer, *answer.file);
  writer.EndObject();
  return text_of(buffer);
}

ExecuteAnswer decode_execute_answer(std::string_view text) {
  return execute_answer_of(read_answer_object(text));
}

ExecuteAnswer execute_answer_of(const rapidjson::Value& document) {
  ExecuteAnswer answer;
  answer.stdout_text = text_member(document, "stdout");
  answer.stderr_text = text_member(document, "stderr");
  answer.exit_code = static_cast<int>(integer_member(document, "exit_code"));
  answer.signal = static_cast<int>(integer_member(document, "signal"));
  answer.timed_out = flag_member(document, "timed_out");
  answer.cpu_limit_exceeded = flag_member(document, "cpu_limit_exceeded");
  answer.stdout_truncated = flag_member(document, "stdout_truncated");
  answer.stderr_truncated = flag_member(document, "stderr_truncated");
  answer.stdout_discarded_bytes =
      static_cast<std::uint64_t>(integer_member(document, "stdout_discarded_bytes"));
  answer.stderr_discarded_bytes =
      static_cast<std::uint64_t>(integer_member(document, "stderr_discarded_bytes"));
  answer.duration_ms = static_cast<std::uint64_t>(integer_member(document, "duration_ms"));
  answer.file = read_file(document);
  return answer;
}

}  // namespace kg::wire::sandbox_api
