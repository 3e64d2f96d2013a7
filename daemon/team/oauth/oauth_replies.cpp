#include "oauth_replies.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace kg::team::oauth {

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

HttpReply json_reply(int status, const rapidjson::Value& document) {
  HttpReply reply;
  reply.status = status;
  reply.body = to_json(document);
  return reply;
}

HttpReply oauth_error(int status, const std::string& code, const std::string& description) {
  rapidjson::Document document(rapidjson::kObjectType);
  auto& allocator = document.GetAllocator();
  document.AddMember("error", rapidjson::Value(code.c_str(), allocator), allocator);
  document.AddMember("error_description", rapidjson::Value(description.c_str(), allocator),
                     allocator);
  HttpReply reply = json_reply(status, document);
  reply.headers = {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}};
  return reply;
}

HttpReply redirect_reply(const std::string& location) {
  HttpReply reply;
  reply.status = 302;
  reply.content_type = "text/plain; charset=utf-8";
  reply.headers = {{"Location", location}, {"Cache-Control", "no-store"}};
  reply.body = "Redirecting to " + location.substr(0, location.find('?')) + "\n";
  return reply;
}

HttpReply page_reply(int status, const std::string& title, const std::string& text) {
  HttpReply reply;
  reply.status = status;
  reply.content_type = "text/html; charset=utf-8";
  reply.headers = {{"Cache-Control", "no-store"}};
  reply.body = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
               "</title></head>\n<body><h1>" + html_escape(title) + "</h1>\n<p>" + html_escape(text) +
               "</p></body></html>\n";
  return reply;
}

}  // namespace kg::team::oauth
