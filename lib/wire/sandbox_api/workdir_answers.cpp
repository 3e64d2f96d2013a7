#include "workdir_answers.hpp"

#include "json_text.hpp"
#include "json_members.hpp"

namespace kg::wire::sandbox_api {
namespace {

std::uint64_t count_member(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  return member != object.MemberEnd() && member->value.IsUint64() ? member->value.GetUint64() : 0;
}

}  // namespace

std::string encode_status_answer(const StatusAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("status");
  write_text(writer, answer.status);
  writer.Key("server");
  write_text(writer, answer.server);
  writer.Key("version");
  write_text(writer, answer.version);
  writer.Key("workdir");
  write_text(writer, answer.workdir);
  writer.EndObject();
  return text_of(buffer);
}

std::string encode_upload_answer(const UploadAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("filename");
  write_text(writer, answer.filename);
  writer.Key("size");
  writer.Uint64(answer.size);
  writer.EndObject();
  return text_of(buffer);
}

std::string encode_upload_tar_answer(const UploadTarAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("files");
  writer.Uint64(answer.files);
  writer.Key("bytes");
  writer.Uint64(answer.bytes);
  writer.EndObject();
  return text_of(buffer);
}

std::string encode_reset_answer(const ResetAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("removed");
  writer.Uint64(answer.removed);
  writer.EndObject();
  return text_of(buffer);
}

StatusAnswer decode_status_answer(std::string_view text) {
  const rapidjson::Document document = read_answer_object(text);
  return StatusAnswer{json::string_member(document, "status"),
                      json::string_member(document, "server"),
                      json::string_member(document, "version"),
                      json::string_member(document, "workdir")};
}

UploadAnswer decode_upload_answer(std::string_view text) {
  const rapidjson::Document document = read_answer_object(text);
  return UploadAnswer{json::string_member(document, "filename"), count_member(document, "size")};
}

UploadTarAnswer decode_upload_tar_answer(std::string_view text) {
  const rapidjson::Document document = read_answer_object(text);
  return UploadTarAnswer{count_member(document, "files"), count_member(document, "bytes")};
}

ResetAnswer decode_reset_answer(std::string_view text) {
  const rapidjson::Document document = read_answer_object(text);
  return ResetAnswer{count_member(document, "removed")};
}

}  // namespace kg::wire::sandbox_api
