// Packs a folder of the workdir into a tar for GET /download-tar (the files a program left under
// /app/out, docs/sandbox-api.md): regular files only, bounded in count, per-file and total size,
// and never following a link. What it leaves out is still listed, as an empty entry that carries
// the reason in the pax attribute kFolderTarRefusedAttribute, so the daemon can warn about each
// one by name. The daemon reads the tar as hostile all the same (daemon/session/out_files.cpp).
//
// Called by the route from a server thread, after the command ended; each call is independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace kg::sandbox {

// The pax extended attribute (libarchive xattr) whose value says why an entry has no content.
inline constexpr const char* kFolderTarRefusedAttribute = "kode-gopher.refused";

struct FolderTarLimits {
  std::uint64_t max_files = 64;
  std::uint64_t max_file_bytes = 8ull << 20;
  std::uint64_t max_total_bytes = 32ull << 20;
};

// The tar of `folder`'s tree; entry names are relative to it ("a/b.csv"). `folder` must be a real
// directory, opened without following a link. Throws std::runtime_error naming what failed.
std::string pack_folder(const std::filesystem::path& folder, const FolderTarLimits& limits);

}  // namespace kg::sandbox
