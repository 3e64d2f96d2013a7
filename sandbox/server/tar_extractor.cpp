#include "tar_extractor.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>
#include <vector>

namespace kg::sandbox {
namespace {

using ArchiveReader = std::unique_ptr<archive, decltype(&archive_read_free)>;
using ArchiveWriter = std::unique_ptr<archive, decltype(&archive_write_free)>;

struct ReadState {
  const TarByteSource* source;
  std::vector<char> buffer;
  std::exception_ptr failure;
};

la_ssize_t read_from_source(archive* reader, void* client_data, const void** block) {
  auto* state = static_cast<ReadState*>(client_data);
  try {
    const std::size_t got = (*state->source)(std::span<char>(state->buffer));
    *block = state->buffer.data();
    return static_cast<la_ssize_t>(got);
  } catch (...) {
    state->failure = std::current_exception();
    archive_set_error(reader, EIO, "reading the upload failed");
    return -1;
  }
}

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// libarchive's message for the last failure of `handle`. It may have none (a truncated pax
// header fails without one): appending that null pointer to a std::string crashed the server.
std::string error_text(archive* handle) {
  const char* text = archive_error_string(handle);
  return text != nullptr ? text : "libarchive gave no reason";
}

// Returns the entry's path with "." and empty segments dropped ("" for the top directory itself).
std::string checked_relative_path(const std::string& name) {
  if (name.empty()) {
    throw TarEntryRejected("Tar entry with an empty name: every entry needs a relative path");
  }
  if (name.front() == '/') {
    throw TarEntryRejected("Tar entry " + quoted(name) +
                           " is an absolute path: use paths relative to the target directory");
  }
  std::string normalized;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string segment = name.substr(start, end - start);
    if (segment == "..") {
      throw TarEntryRejected("Tar entry " + quoted(name) +
                             " has a '..' segment: paths must stay inside the target directory");
    }
    if (!segment.empty() && segment != ".") {
      if (!normalized.empty()) normalized += '/';
      normalized += segment;
    }
    start = end + 1;
  }
  return normalized;
}

const char* refused_kind(archive_entry* entry) {
  if (archive_entry_hardlink(entry) != nullptr) return "a hard link";
  switch (archive_entry_filetype(entry)) {
    case AE_IFREG:
    case AE_IFDIR: return nullptr;
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return "of an unknown type";
  }
}

std::string entry_name(archive_entry* entry) {
  const char* name = archive_entry_pathname(entry);
  if (name == nullptr) name = archive_entry_pathname_utf8(entry);
  return name == nullptr ? std::string() : std::string(name);
}

TarLimitExceeded too_many_bytes(const TarLimits& limits, const std::string& name) {
  return TarLimitExceeded("The tar's files exceed the upload limit of " +
                          std::to_string(limits.max_total_bytes) + " bytes (at entry " +
                          quoted(name) + "): upload fewer or smaller files");
}

[[noreturn]] void throw_read_failure(archive* reader, ReadState& state, const std::string& where) {
  if (state.failure) {
    try {
      std::rethrow_exception(state.failure);
    } catch (...) {
      std::throw_with_nested(std::runtime_error("Cannot read the tar upload " + where));
    }
  }
  throw TarFormatError("The upload is not a valid tar archive (" + where +
                       "): " + error_text(reader) + "; send an uncompressed tar");
}

void copy_file_data(archive* reader, archive* writer, ReadState& state, const std::string& name,
                    std::uint64_t& total, const TarLimits& limits) {
  const void* block = nullptr;
  std::size_t size = 0;
  la_int64_t offset = 0;
  for (;;) {
    const int status = archive_read_data_block(reader, &block, &size, &offset);
    if (status == ARCHIVE_EOF) return;
    if (status < ARCHIVE_WARN) throw_read_failure(reader, state, "in entry " + quoted(name));
    total += size;
    if (total > limits.max_total_bytes) throw too_many_bytes(limits, name);
    if (archive_write_data_block(writer, block, size, offset) < ARCHIVE_WARN) {
      throw std::runtime_error("Cannot write " + quoted(name) + ": " +
                               error_text(writer));
    }
  }
}

}  // namespace

TarExtractionSummary extract_tar(const TarByteSource& source,
                                 const std::filesystem::path& destination,
                                 const TarLimits& limits) {
  ArchiveReader reader(archive_read_new(), archive_read_free);
  ArchiveWriter writer(archive_write_disk_new(), archive_write_free);
  if (!reader || !writer) throw std::runtime_error("libarchive could not allocate a handle");
  archive_read_support_format_tar(reader.get());
  // Entry paths are checked above and then joined to the absolute destination, so
  // SECURE_NOABSOLUTEPATHS cannot be set here (it would refuse our own joined path); the
  // symlink check still walks every component below the destination.
  archive_write_disk_set_options(writer.get(), ARCHIVE_EXTRACT_TIME |
                                                   ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                   ARCHIVE_EXTRACT_SECURE_NODOTDOT);
  ReadState state{&source, std::vector<char>(64 * 1024), nullptr};
  if (archive_read_open(reader.get(), &state, nullptr, read_from_source, nullptr) != ARCHIVE_OK) {
    throw_read_failure(reader.get(), state, "at its start");
  }

  TarExtractionSummary summary;
  std::uint64_t entries = 0;
  std::uint64_t total_bytes = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) {
      throw_read_failure(reader.get(), state, "entry #" + std::to_string(entries + 1));
    }
    if (++entries > limits.max_entries) {
      throw TarLimitExceeded("The tar has more than " + std::to_string(limits.max_entries) +
                             " entries: upload fewer files at once");
    }
    const std::string name = entry_name(entry);
    const std::string relative = checked_relative_path(name);
    if (const char* kind = refused_kind(entry)) {
      throw TarEntryRejected("Tar entry " + quoted(name) + " is " + kind +
                             ": only regular files and directories can be uploaded");
    }
    const bool is_directory = archive_entry_filetype(entry) == AE_IFDIR;
    if (relative.empty()) {
      if (is_directory) continue;  // "./" is the destination itself
      throw TarEntryRejected("Tar entry " + quoted(name) + " names the target directory itself");
    }
    if (!is_directory && total_bytes + static_cast<std::uint64_t>(archive_entry_size(entry)) >
                             limits.max_total_bytes) {
      throw too_many_bytes(limits, name);
    }
    const bool executable = (archive_entry_perm(entry) & 0111) != 0;
    archive_entry_set_perm(entry, is_directory || executable ? 0755 : 0644);
    archive_entry_set_pathname(entry, (destination / relative).c_str());
    if (archive_write_header(writer.get(), entry) < ARCHIVE_WARN) {
      // A symlink on the way, a file where a directory should be: the entry does not fit.
      throw TarEntryRejected("Tar entry " + quoted(name) + " cannot be written: " +
                             error_text(writer.get()));
    }
    if (!is_directory) {
      copy_file_data(reader.get(), writer.get(), state, name, total_bytes, limits);
      ++summary.files;
    }
    if (archive_write_finish_entry(writer.get()) < ARCHIVE_WARN) {
      throw std::runtime_error("Cannot finish " + quoted(name) + ": " +
                               error_text(writer.get()));
    }
  }
  if (archive_write_close(writer.get()) < ARCHIVE_WARN) {
    throw std::runtime_error("Cannot finish extracting under " + destination.string() + ": " +
                             error_text(writer.get()));
  }
  summary.bytes = total_bytes;
  return summary;
}

}  // namespace kg::sandbox
