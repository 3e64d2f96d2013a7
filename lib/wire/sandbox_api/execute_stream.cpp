#include "execute_stream.hpp"

#include "json_text.hpp"
#include "malformed_message.hpp"

namespace kg::wire::sandbox_api {
namespace {

std::string wrapped(const char* key, const std::string& object_json) {
  return std::string("{\"") + key + "\":" + object_json + "}";
}

MalformedMessage bad_line(const std::string& why) {
  return MalformedMessage("the sandbox's answer has a streamed line " + why);
}

OutputPiece piece_of(const rapidjson::Value& object) {
  const rapidjson::Value* stream = given(object, "stream");
  const rapidjson::Value* text = given(object, "text");
  if (stream == nullptr || !stream->IsString() || text == nullptr || !text->IsString()) {
    throw bad_line("\"output\" without a \"stream\" and a \"text\" string");
  }
  const std::string name = string_of(*stream);
  if (name != "stdout" && name != "stderr") {
    throw bad_line("\"output\" of the unknown stream \"" + name.substr(0, 32) + "\"");
  }
  OutputPiece piece;
  piece.is_stderr = name == "stderr";
  piece.text = string_of(*text);
  const rapidjson::Value* cut = given(object, "cut");
  piece.cut = cut != nullptr && cut->IsBool() && cut->GetBool();
  return piece;
}

OutputDropped dropped_of(const rapidjson::Value& object) {
  const rapidjson::Value* bytes = given(object, "bytes");
  if (bytes == nullptr || !bytes->IsUint64()) {
    throw bad_line("\"output_dropped\" without a \"bytes\" count");
  }
  OutputDropped dropped;
  dropped.bytes = bytes->GetUint64();
  const rapidjson::Value* reason = given(object, "reason");
  dropped.reason = reason != nullptr && reason->IsString() && string_of(*reason) == "limit"
                       ? DropReason::limit
                       : DropReason::slow_reader;
  return dropped;
}

}  // namespace

std::string_view to_string(DropReason reason) noexcept {
  return reason == DropReason::limit ? "limit" : "slow_reader";
}

std::string encode_output_piece(const OutputPiece& piece) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("stream");
  writer.String(piece.is_stderr ? "stderr" : "stdout");
  writer.Key("text");
  write_text(writer, piece.text);
  if (piece.cut) {
    writer.Key("cut");
    writer.Bool(true);
  }
  writer.EndObject();
  return wrapped("output", text_of(buffer));
}

std::string encode_output_dropped(const OutputDropped& dropped) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("bytes");
  writer.Uint64(dropped.bytes);
  writer.Key("reason");
  const std::string_view reason = to_string(dropped.reason);
  writer.String(reason.data(), static_cast<rapidjson::SizeType>(reason.size()));
  writer.EndObject();
  return wrapped("output_dropped", text_of(buffer));
}

std::string encode_stream_result(const ExecuteAnswer& answer) {
  return wrapped("result", encode_execute_answer(answer));
}

std::string encode_stream_error(std::string_view detail) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("detail");
  write_text(writer, detail);
  writer.EndObject();
  return wrapped("error", text_of(buffer));
}

std::optional<ExecuteStreamLine> decode_execute_stream_line(std::string_view line) {
  const rapidjson::Document document = read_answer_object(line);
  if (const rapidjson::Value* output = given(document, "output")) {
    if (!output->IsObject()) throw bad_line("whose \"output\" is not an object");
    return piece_of(*output);
  }
  if (const rapidjson::Value* dropped = given(document, "output_dropped")) {
    if (!dropped->IsObject()) throw bad_line("whose \"output_dropped\" is not an object");
    return dropped_of(*dropped);
  }
  if (const rapidjson::Value* result = given(document, "result")) {
    if (!result->IsObject()) throw bad_line("whose \"result\" is not an object");
    return execute_answer_of(*result);
  }
  if (const rapidjson::Value* error = given(document, "error")) {
    const rapidjson::Value* detail = error->IsObject() ? given(*error, "detail") : nullptr;
    StreamError failure;
    failure.detail = detail != nullptr && detail->IsString()
                         ? string_of(*detail)
                         : std::string("the sandbox reported an error without a detail");
    return failure;
  }
  return std::nullopt;
}

std::optional<StreamRequest> read_stream_request(const rapidjson::Value& body) {
  const rapidjson::Value* object = given(body, "stream");
  if (object == nullptr) return std::nullopt;
  constexpr const char* kShape =
      R"("stream" must be an object such as {"max_bytes": 1048576, "skip_prefix": "runner: "})";
  if (!object->IsObject()) throw MalformedMessage(kShape);
  StreamRequest request;
  for (const auto& member : object->GetObject()) {
    const std::string key = string_of(member.name);
    if (key == "max_bytes") {
      if (!member.value.IsUint64() || member.value.GetUint64() > kMaxStreamMaxBytes) {
        throw MalformedMessage("\"stream\".\"max_bytes\" must be an integer from 0 to " +
                               std::to_string(kMaxStreamMaxBytes));
      }
      request.max_bytes = member.value.GetUint64();
    } else if (key == "skip_prefix") {
      if (!member.value.IsString()) throw MalformedMessage(kShape);
      request.skip_prefix = string_of(member.value);
    } else {
      throw MalformedMessage("\"stream\" has the unknown key \"" + key +
                             "\"; known: max_bytes, skip_prefix");
    }
  }
  return request;
}

void write_stream_request(JsonWriter& writer, const StreamRequest& request) {
  writer.Key("stream");
  writer.StartObject();
  writer.Key("max_bytes");
  writer.Uint64(request.max_bytes);
  if (!request.skip_prefix.empty()) {
    writer.Key("skip_prefix");
    write_bytes(writer, request.skip_prefix);
  }
  writer.EndObject();
}

}  // namespace kg::wire::sandbox_api
