// Reads the tar a sandbox answers to GET /download-tar (a program's /app/out) as the hostile input
// it is: a program that took over the sandbox's server writes whatever it likes there. Only
// regular files with clean relative names come out, within the same bounds the daemon asked the
// sandbox to keep; everything else becomes a warning naming the entry and why. The entries the
// sandbox itself left out arrive empty with their reason (sandbox/server/folder_tar.hpp).
//
// Pure; any thread. Used by the session layer after each call (daemon/session/call_files.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "call_handle.hpp"

namespace kg::sandbox {

struct FolderFile {
  std::string name;  // relative, '/'-separated, each segment checked (checked_out_file_name)
  std::string content;
};

struct FolderContents {
  std::vector<FolderFile> files;  // in the tar's order
  std::vector<std::string> warnings;  // "out/<name>: <why it did not come back>"
};

// `shown_prefix` starts each warning's name ("out/"). Never throws: a tar that cannot be read
// at all gives the files read before and a warning saying so.
FolderContents read_folder_tar(std::string_view tar, const FolderTarBounds& bounds,
                               std::string_view shown_prefix);

// `name` when it is a relative path a file may be kept and served under: valid UTF-8, 1 to 512
// bytes, segments of 1 to 255 bytes, none "." or "..", no control characters or backslashes.
// Else empty.
std::string checked_out_file_name(std::string_view name);

}  // namespace kg::sandbox
