// The files programs left under /app/out, kept by the daemon after each call (docs/mcp.md,
// "Files out"; docs/daemon-api.md): under <state dir>/call-files/<owner folder>/<session>/<call>/,
// so a lookup that names another owner finds nothing, and removed with their session (and all
// of them when the daemon starts: no session survives a restart).
//
// Owned by SessionManager; any thread (each method works on its own paths; a session's calls
// run one at a time, and its files go only after its last call).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "folder_tar_reader.hpp"

namespace kg::session {

// Where the program writes the files that come back, and how many and how big they may be.
inline constexpr const char* kOutFolder = "out";  // of /app
inline constexpr const char* kOutFolderInSandbox = "/app/out";
inline constexpr sandbox::FolderTarBounds kOutFileBounds{64, 8ull << 20, 32ull << 20};

// One kept file as a call's result lists it.
struct OutFile {
  std::string name;  // relative to /app/out
  std::uint64_t size = 0;
  std::string media_type;
  // kode-gopher://sessions/<session>/calls/<call>/files/<name, percent-encoded per segment>;
  // empty for a one-shot call, whose files went with its session.
  std::string uri;
};

struct OutFileContent {
  std::string content;
  std::string media_type;
};

// No such file for that owner, session and call (the API's not_found).
class CallFileNotFoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CallFileStore {
 public:
  // Removes whatever a daemon before this one left under `root` and makes it (mode 0700).
  // Throws std::runtime_error naming the folder.
  explicit CallFileStore(std::filesystem::path root);

  // Writes a call's files; returns them as the result lists them. Throws std::runtime_error
  // naming the file that could not be written.
  std::vector<OutFile> keep(const std::string& owner, const std::string& session_id,
                            std::int64_t call_id, const std::vector<sandbox::FolderFile>& files);
  // Throws CallFileNotFoundError.
  OutFileContent read(const std::string& owner, const std::string& session_id,
                      std::int64_t call_id, const std::string& name) const;
  // Every file of the session's calls, oldest call first.
  std::vector<OutFile> list(const std::string& owner, const std::string& session_id) const;
  // Never throws (logs nothing: the caller does).
  void drop_session(const std::string& owner, const std::string& session_id) noexcept;

 private:
  std::filesystem::path session_folder(const std::string& owner, const std::string& session_id) const;

  std::filesystem::path root_;
};

// The uri of `name` kept for that call (OutFile::uri), and its parts back: false when `uri` is
// not one (then the parts are unspecified).
std::string out_file_uri(const std::string& session_id, std::int64_t call_id, const std::string& name);
struct OutFileAddress {
  std::string session_id;
  std::int64_t call_id = 0;
  std::string name;
};
bool parse_out_file_uri(std::string_view uri, OutFileAddress& address);

}  // namespace kg::session
