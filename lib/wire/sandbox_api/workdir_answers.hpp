// The small answers of the sandbox runtime API's workdir routes (docs/sandbox-api.md): GET /
// (readiness), POST /upload, POST /upload-tar and POST /reset. kode-gopher-sandbox encodes them;
// the daemon's SandboxClient decodes the readiness answer (it ignores the others' bodies, whose
// status says enough). Decoders read leniently, as the /execute answer's does: a missing member
// reads as empty or 0. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kg::wire::sandbox_api {

// GET /: {"status", "server", "version", "workdir"}; "status" is "ok" when the server is ready.
struct StatusAnswer {
  std::string status = "ok";
  std::string server;
  std::string version;
  std::string workdir;
  bool operator==(const StatusAnswer&) const = default;
};

// POST /upload: {"filename", "size"}.
struct UploadAnswer {
  std::string filename;
  std::uint64_t size = 0;
  bool operator==(const UploadAnswer&) const = default;
};

// POST /upload-tar: {"files", "bytes"}: what the tar held.
struct UploadTarAnswer {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  bool operator==(const UploadTarAnswer&) const = default;
};

// POST /reset: {"removed"}: entries removed from the workdir.
struct ResetAnswer {
  std::uint64_t removed = 0;
  bool operator==(const ResetAnswer&) const = default;
};

std::string encode_status_answer(const StatusAnswer& answer);
std::string encode_upload_answer(const UploadAnswer& answer);
std::string encode_upload_tar_answer(const UploadTarAnswer& answer);
std::string encode_reset_answer(const ResetAnswer& answer);

// Each throws MalformedMessage "the sandbox's answer ..." when the text is not a JSON object
// within lib/json's sandbox limits.
StatusAnswer decode_status_answer(std::string_view text);
UploadAnswer decode_upload_answer(std::string_view text);
UploadTarAnswer decode_upload_tar_answer(std::string_view text);
ResetAnswer decode_reset_answer(std::string_view text);

}  // namespace kg::wire::sandbox_api
