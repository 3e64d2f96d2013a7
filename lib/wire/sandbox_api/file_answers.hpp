// The answers of the sandbox runtime API's file routes that are JSON (docs/sandbox-api.md):
// GET /list/<path> and GET /exists/<path> (GET /download/<path> answers the file's bytes).
// kode-gopher-sandbox encodes them; any client of the contract decodes them. Pure functions; any
// thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kg::wire::sandbox_api {

// One entry of GET /list/<path>: {"name", "size", "type": "file"|"directory", "mod_time"}.
struct ListEntry {
  std::string name;
  std::uint64_t size = 0;
  bool directory = false;
  double mod_time = 0;  // seconds since the epoch, with a fraction
  bool operator==(const ListEntry&) const = default;
};

// GET /exists/<path>: {"path", "exists"}.
struct ExistsAnswer {
  std::string path;  // as decoded from the URL
  bool exists = false;
  bool operator==(const ExistsAnswer&) const = default;
};

// A JSON array of entries, in the order given.
std::string encode_list_answer(const std::vector<ListEntry>& entries);
std::string encode_exists_answer(const ExistsAnswer& answer);

// Throw MalformedMessage "the sandbox's answer ..." when the text is not JSON (within lib/json's
// sandbox limits) of the answer's shape: an array of objects, or an object.
std::vector<ListEntry> decode_list_answer(std::string_view text);
ExistsAnswer decode_exists_answer(std::string_view text);

}  // namespace kg::wire::sandbox_api
