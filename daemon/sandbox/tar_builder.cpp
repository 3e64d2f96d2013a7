#include "tar_builder.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <set>
#include <stdexcept>

namespace kg::sandbox {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const noexcept { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(archive_entry* e) const noexcept { archive_entry_free(e); }
};

la_ssize_t append_to_string(archive*, void* client_data, const void* buffer, size_t length) {
  static_cast<std::string*>(client_data)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

void check(archive* a, int rc, const std::string& what) {
  if (rc < ARCHIVE_OK) {
    const char* reason = archive_error_string(a);
    throw std::runtime_error(what + ": " + (reason ? reason : "libarchive error"));
  }
}

void add_entry(archive* a, const std::string& path, const std::string* content) {
  std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
  archive_entry_set_pathname(entry.get(), path.c_str());
  if (content) {
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content->size()));
  } else {
    archive_entry_set_filetype(entry.get(), AE_IFDIR);
    archive_entry_set_perm(entry.get(), 0755);
  }
  check(a, archive_write_header(a, entry.get()), "Failed to add " + path + " to the upload");
  if (content && !content->empty()) {
    const auto written = archive_write_data(a, content->data(), content->size());
    if (written < 0 || static_cast<size_t>(written) != content->size()) {
      check(a, ARCHIVE_FATAL, "Failed to add " + path + " to the upload");
    }
  }
}

}  // namespace

std::string build_tar(std::span<const plugin::SourceFile> files) {
  std::string out;
  std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
  check(a.get(), archive_write_set_format_pax_restricted(a.get()), "Failed to start the upload");
  check(a.get(), archive_write_set_bytes_per_block(a.get(), 0), "Failed to start the upload");
  check(a.get(), archive_write_open(a.get(), &out, nullptr, append_to_string, nullptr),
        "Failed to start the upload");
  // Parent directories first, so the extractor never has to invent them.
  std::set<std::string> directories;
  for (const auto& file : files) {
    for (auto slash = file.path.find('/'); slash != std::string::npos;
         slash = file.path.find('/', slash + 1)) {
      directories.insert(file.path.substr(0, slash));
    }
  }
  for (const auto& dir : directories) add_entry(a.get(), dir, nullptr);
  for (const auto& file : files) add_entry(a.get(), file.path, &file.content);
  check(a.get(), archive_write_close(a.get()), "Failed to finish the upload");
  return out;
}

}  // namespace kg::sandbox
