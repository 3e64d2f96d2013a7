#include "media_type.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "utf8_text.hpp"

namespace kg::session {
namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kByExtension{{
    {"csv", "text/csv"},          {"tsv", "text/tab-separated-values"},
    {"txt", "text/plain"},        {"log", "text/plain"},
    {"md", "text/markdown"},      {"html", "text/html"},
    {"htm", "text/html"},         {"css", "text/css"},
    {"go", "text/x-go"},          {"json", "application/json"},
    {"ndjson", "application/x-ndjson"}, {"jsonl", "application/x-ndjson"},
    {"xml", "application/xml"},   {"yaml", "application/yaml"},
    {"yml", "application/yaml"},  {"svg", "image/svg+xml"},
    {"png", "image/png"},         {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},       {"gif", "image/gif"},
    {"webp", "image/webp"},       {"pdf", "application/pdf"},
    {"gz", "application/gzip"},   {"zip", "application/zip"},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kBySignature{{
    {"\x89PNG\r\n\x1a\n", "image/png"},
    {"\xff\xd8\xff", "image/jpeg"},
    {"GIF8", "image/gif"},
    {"%PDF-", "application/pdf"},
    {"\x1f\x8b", "application/gzip"},
    {"PK\x03\x04", "application/zip"},
}};

}  // namespace

std::string guess_media_type(std::string_view name, std::string_view content) {
  const auto slash = name.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  const auto dot = base.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < base.size()) {
    std::string extension(base.substr(dot + 1));
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& [known, type] : kByExtension) {
      if (extension == known) return std::string(type);
    }
  }
  for (const auto& [signature, type] : kBySignature) {
    if (content.starts_with(signature)) return std::string(type);
  }
  const std::string_view head = content.substr(0, json::utf8_boundary_before(content, 4096));
  if (head.find('\0') == std::string_view::npos && json::is_valid_utf8(head)) return "text/plain";
  return "application/octet-stream";
}

}  // namespace kg::session
