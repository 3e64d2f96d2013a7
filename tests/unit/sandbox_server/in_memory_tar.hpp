// Builds tar archives in memory with libarchive's archive_write, hostile entries included, for
// the tar extractor and /upload-tar tests. Tests only.
#pragma once

#include <string>

struct archive;

namespace kg::sandbox::testing {

class InMemoryTar {
 public:
  InMemoryTar();
  ~InMemoryTar();
  InMemoryTar(const InMemoryTar&) = delete;
  InMemoryTar& operator=(const InMemoryTar&) = delete;

  InMemoryTar& file(const std::string& name, const std::string& content, int mode = 0644);
  InMemoryTar& directory(const std::string& name);
  InMemoryTar& symlink(const std::string& name, const std::string& target);
  InMemoryTar& hardlink(const std::string& name, const std::string& target);
  // A FIFO, character device... (AE_IFIFO, AE_IFCHR, AE_IFBLK, AE_IFSOCK from archive_entry.h).
  InMemoryTar& special(const std::string& name, unsigned int filetype);
  // Ends the archive and returns its bytes; the builder cannot be used afterwards.
  std::string finish();

 private:
  static long append(archive*, void* self, const void* data, std::size_t size);
  archive* writer_;
  std::string bytes_;
};

}  // namespace kg::sandbox::testing
