#include "in_memory_tar.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <stdexcept>

namespace kg::sandbox::testing {
namespace {

using Entry = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

Entry new_entry(const std::string& name, unsigned int filetype, int mode) {
  Entry entry(archive_entry_new(), archive_entry_free);
  archive_entry_set_pathname(entry.get(), name.c_str());
  archive_entry_set_filetype(entry.get(), filetype);
  archive_entry_set_perm(entry.get(), static_cast<mode_t>(mode));
  archive_entry_set_mtime(entry.get(), 1'700'000'000, 0);
  return entry;
}

}  // namespace

InMemoryTar::InMemoryTar() : writer_(archive_write_new()) {
  archive_write_set_format_pax_restricted(writer_);
  archive_write_set_bytes_per_block(writer_, 512);
  if (archive_write_open(writer_, this, nullptr, &InMemoryTar::append, nullptr) != ARCHIVE_OK) {
    throw std::runtime_error(std::string("archive_write_open: ") + archive_error_string(writer_));
  }
}

InMemoryTar::~InMemoryTar() { archive_write_free(writer_); }

long InMemoryTar::append(archive*, void* self, const void* data, std::size_t size) {
  static_cast<InMemoryTar*>(self)->bytes_.append(static_cast<const char*>(data), size);
  return static_cast<long>(size);
}

InMemoryTar& InMemoryTar::file(const std::string& name, const std::string& content, int mode) {
  Entry entry = new_entry(name, AE_IFREG, mode);
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
  archive_write_header(writer_, entry.get());
  archive_write_data(writer_, content.data(), content.size());
  return *this;
}

InMemoryTar& InMemoryTar::directory(const std::string& name) {
  archive_write_header(writer_, new_entry(name, AE_IFDIR, 0755).get());
  return *this;
}

InMemoryTar& InMemoryTar::symlink(const std::string& name, const std::string& target) {
  Entry entry = new_entry(name, AE_IFLNK, 0777);
  archive_entry_set_symlink(entry.get(), target.c_str());
  archive_write_header(writer_, entry.get());
  return *this;
}

InMemoryTar& InMemoryTar::hardlink(const std::string& name, const std::string& target) {
  Entry entry = new_entry(name, AE_IFREG, 0644);
  archive_entry_set_hardlink(entry.get(), target.c_str());
  archive_write_header(writer_, entry.get());
  return *this;
}

InMemoryTar& InMemoryTar::special(const std::string& name, unsigned int filetype) {
  archive_write_header(writer_, new_entry(name, filetype, 0644).get());
  return *this;
}

std::string InMemoryTar::finish() {
  if (archive_write_close(writer_) != ARCHIVE_OK) {
    throw std::runtime_error(std::string("archive_write_close: ") + archive_error_string(writer_));
  }
  return bytes_;
}

}  // namespace kg::sandbox::testing
