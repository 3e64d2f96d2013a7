// Fuzzes the sandbox server's tar extraction (POST /upload-tar): the input is the tar body,
// extracted with extract_tar into a fresh destination for each input, inside a scratch folder
// kept for the run:
//   <root>/outside/               must stay empty
//   <root>/dest/                  the destination, recreated for each input, holding two
//     link_out -> ../outside        symlinks a program in the sandbox could have planted
//     link_in -> sub, sub/
// The body reaches the extractor in chunks of an input-dependent size, as a socket delivers it.
//
// Invariants: only TarEntryRejected, TarLimitExceeded or TarFormatError escape (a fuzzed body is
// the client's fault, never a 500); nothing appears outside the destination; the destination
// holds only directories, regular files of mode 0644 or 0755, and the planted links (unless an
// entry replaced one), still pointing where they did; the summary matches the limits.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <system_error>

#include "fuzz_invariant.hpp"
#include "tar_extractor.hpp"

namespace {

namespace fs = std::filesystem;

constexpr kg::sandbox::TarLimits kLimits{1u << 20, 256};

fs::path make_scratch_root() {
  ::umask(022);
  std::string pattern = (fs::temp_directory_path() / "kg-fuzz-tar-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    kg::fuzz::invariant_broken("mkdtemp", "cannot create a scratch folder", __FILE__, __LINE__);
  }
  fs::path made = fs::canonical(pattern);
  fs::create_directory(made / "outside");
  return made;
}

void remove_scratch_root();

const fs::path& scratch_root() {
  static const fs::path root = make_scratch_root();
  // Registered once `root` is complete, so it runs before `root` is destroyed.
  [[maybe_unused]] static const bool removed_at_exit = std::atexit(remove_scratch_root) == 0;
  return root;
}

void remove_scratch_root() {
  std::error_code ignored;
  fs::remove_all(scratch_root(), ignored);
}

fs::path fresh_destination() {
  const fs::path destination = scratch_root() / "dest";
  std::error_code error;
  fs::remove_all(destination, error);
  KG_FUZZ_CHECK(!error, "cannot clear " + destination.string() + ": " + error.message());
  fs::create_directories(destination / "sub");
  fs::create_symlink("../outside", destination / "link_out");
  fs::create_symlink("sub", destination / "link_in");
  return destination;
}

bool is_planted_link(const fs::path& path, const fs::path& destination) {
  return path == destination / "link_out" || path == destination / "link_in";
}

void check_confined(const fs::path& destination, const kg::sandbox::TarExtractionSummary* summary) {
  const fs::path& root = scratch_root();
  for (const auto& entry : fs::directory_iterator(root)) {
    const auto name = entry.path().filename();
    KG_FUZZ_CHECK(name == "outside" || name == "dest",
                  entry.path().string() + " was created outside the destination");
  }
  KG_FUZZ_CHECK(fs::is_empty(root / "outside"),
                "something was written through the planted link into " + (root / "outside").string());
  std::uint64_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(destination)) {
    const fs::path& path = entry.path();
    struct stat info {};
    KG_FUZZ_CHECK(::lstat(path.c_str(), &info) == 0, "cannot lstat " + path.string());
    if (S_ISLNK(info.st_mode)) {
      KG_FUZZ_CHECK(is_planted_link(path, destination), path.string() + " is a symlink from the tar");
      continue;
    }
    if (S_ISREG(info.st_mode)) {
      const unsigned mode = info.st_mode & 07777;
      KG_FUZZ_CHECK(mode == 0644 || mode == 0755,
                    path.string() + " has mode " + std::to_string(mode) + " (octal 644/755 expected)");
      bytes += static_cast<std::uint64_t>(info.st_size);
      continue;
    }
    KG_FUZZ_CHECK(S_ISDIR(info.st_mode), path.string() + " is neither a file nor a directory");
  }
  // A tar entry of the same name may replace a planted link, but never re-point it.
  for (const auto& [link, target] : {std::pair{"link_out", "../outside"}, std::pair{"link_in", "sub"}}) {
    if (!fs::is_symlink(fs::symlink_status(destination / link))) continue;
    KG_FUZZ_CHECK(fs::read_symlink(destination / link) == target,
                  std::string("the planted ") + link + " now points elsewhere");
  }
  if (summary != nullptr) {
    KG_FUZZ_CHECK(summary->bytes <= kLimits.max_total_bytes, "more bytes than the limit");
    KG_FUZZ_CHECK(summary->files <= kLimits.max_entries, "more files than the limit");
    // Files overwritten by later entries of the same name count twice in the summary.
    KG_FUZZ_CHECK(bytes <= summary->bytes, "more bytes on disk than the summary says");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path destination = fresh_destination();
  const std::size_t chunk = 1 + (size * 131) % 1024;
  std::size_t offset = 0;
  const kg::sandbox::TarByteSource source = [&](std::span<char> buffer) {
    const std::size_t count = std::min({buffer.size(), chunk, size - offset});
    if (count > 0) std::memcpy(buffer.data(), data + offset, count);
    offset += count;
    return count;
  };
  kg::sandbox::TarExtractionSummary summary;
  bool extracted = false;
  try {
    summary = kg::sandbox::extract_tar(source, destination, kLimits);
    extracted = true;
  } catch (const kg::sandbox::TarEntryRejected&) {
  } catch (const kg::sandbox::TarLimitExceeded&) {
  } catch (const kg::sandbox::TarFormatError&) {
  }
  check_confined(destination, extracted ? &summary : nullptr);
  std::error_code ignored;
  fs::remove_all(destination, ignored);
  return 0;
}
