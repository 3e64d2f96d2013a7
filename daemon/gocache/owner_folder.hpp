// One folder per owner inside a host-side cache (the binary cache, the tidy module cache), so
// what one user's programs put there is never another user's to see (docs/security.md, "Caches
// between users"). The folder's name is a digest of the owner's id (issuer#subject in team mode,
// empty for the daemon's own user), so no user name appears on disk; its mode is 0700, and
// sandboxes never see it: each one gets hard links to single entries (link_entry) in a folder of
// its own.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kg::sandbox {

// "o-" and 32 hex digits of the sha256 of owner_id.
std::string owner_folder_name(std::string_view owner_id);
// Whether `name` has owner_folder_name()'s shape.
bool is_owner_folder_name(std::string_view name) noexcept;
// root/owner_folder_name(owner_id), made (mode 0700) when missing. Throws std::runtime_error
// naming the folder.
std::filesystem::path ensure_owner_folder(const std::filesystem::path& root, std::string_view owner_id);

// Makes `target` the same file as `source`: a hard link (folders on the way are made, mode 0755),
// else, across file systems, a copy with source's permissions. An existing target is kept.
// Throws std::runtime_error naming both paths.
void link_entry(const std::filesystem::path& source, const std::filesystem::path& target);

}  // namespace kg::sandbox
