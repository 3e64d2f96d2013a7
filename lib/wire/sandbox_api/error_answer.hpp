// Every refusal of the sandbox runtime API (docs/sandbox-api.md): {"detail": "..."} from
// kode-gopher-sandbox, {"message": "..."} from other runtimes of the contract. The server encodes
// it for each 4xx and 5xx; the daemon's SandboxClient decodes it into the error it reports.
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kg::wire::sandbox_api {

// {"detail": message}, with bytes that are not valid UTF-8 repaired.
std::string encode_error_answer(std::string_view message);

// The "detail" string of an error body, else its "message" string; nullopt when the body is not
// a JSON object (within lib/json's sandbox limits) holding either. Never throws but bad_alloc.
std::optional<std::string> decode_error_answer(std::string_view body);

}  // namespace kg::wire::sandbox_api
