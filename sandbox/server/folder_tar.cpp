#include "folder_tar.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "unique_fd.hpp"

namespace kg::sandbox {
namespace {

// A tree deeper than this, or with more entries than this, is not walked further: the program
// could otherwise make the walk itself slow.
constexpr int kMaxDepth = 16;
constexpr std::uint64_t kMaxEntriesSeen = 4096;

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

std::string mib(std::uint64_t bytes) {
  const std::uint64_t tenths = (bytes * 10 + (1 << 19)) >> 20;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class FolderPacker {
 public:
  explicit FolderPacker(const FolderTarLimits& limits) : limits_(limits), writer_(archive_write_new()) {
    check(archive_write_set_format_pax(writer_.get()));
    check(archive_write_set_bytes_per_block(writer_.get(), 0));
    check(archive_write_open(writer_.get(), &out_, nullptr, append_to_string, nullptr));
  }

  void walk(int dir_fd, const std::string& prefix, int depth) {
    std::vector<std::string> names;
    {
      const int listing_fd = ::dup(dir_fd);
      DIR* dir = listing_fd < 0 ? nullptr : ::fdopendir(listing_fd);
      if (dir == nullptr) {
        if (listing_fd >= 0) ::close(listing_fd);
        throw std::runtime_error("Cannot list " + shown(prefix) + ": " + std::strerror(errno));
      }
      while (const dirent* item = ::readdir(dir)) {
        const std::string name = item->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      ::closedir(dir);
    }
    std::sort(names.begin(), names.end());  // the same tree packs the same way every time
    for (const auto& name : names) {
      const std::string path = prefix.empty() ? name : prefix + "/" + name;
      if (++seen_ > kMaxEntriesSeen) {
        if (!said_too_many_) refuse(path, "the folder holds more than " +
                                              std::to_string(kMaxEntriesSeen) +
                                              " entries; the rest were not looked at");
        said_too_many_ = true;
        return;
      }
      struct stat info {};
      if (::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone
      if (S_ISDIR(info.st_mode)) {
        if (depth >= kMaxDepth) {
          refuse(path, "folders nest deeper than " + std::to_string(kMaxDepth) + " levels");
          continue;
        }
        const UniqueFd child(::openat(dir_fd, name.c_str(),
                                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (child.get() < 0) {
          refuse(path, std::string("cannot open the folder: ") + std::strerror(errno));
          continue;
        }
        walk(child.get(), path, depth + 1);
      } else if (S_ISREG(info.st_mode)) {
        add_file(dir_fd, name, path, info);
      } else {
        std::string reason = std::string(kind_of(info.st_mode)) + "; only regular files come back";
        if (S_ISLNK(info.st_mode)) reason = link_reason(dir_fd, name);
        refuse(path, reason);
      }
    }
  }

  std::string finish() {
    check(archive_write_close(writer_.get()));
    return std::move(out_);
  }

 private:
  static std::string shown(const std::string& path) { return path.empty() ? "the folder" : path; }

  static std::string link_reason(int dir_fd, const std::string& name) {
    char target[256];
    const ssize_t length = ::readlinkat(dir_fd, name.c_str(), target, sizeof target - 1);
    std::string reason = "a symbolic link";
    if (length > 0) reason += " (to " + std::string(target, static_cast<std::size_t>(length)) + ")";
    return reason + "; links are never followed: write the file itself under the folder";
  }

  void add_file(int dir_fd, const std::string& name, const std::string& path,
                const struct stat& info) {
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (files_ >= limits_.max_files) {
      refuse(path, "more than " + std::to_string(limits_.max_files) + " files; only the first " +
                       std::to_string(limits_.max_files) + " (by name) come back");
      return;
    }
    if (size > limits_.max_file_bytes) {
      refuse(path, mib(size) + ", over the limit of " + mib(limits_.max_file_bytes) +
                       " per file; write a smaller file (compress it, or split it)");
      return;
    }
    if (total_ + size > limits_.max_total_bytes) {
      refuse(path, "the files before it already use " + mib(total_) + " of the " +
                       mib(limits_.max_total_bytes) + " all files together may use");
      return;
    }
    // O_NONBLOCK: had the file become a FIFO since fstatat, opening it must not wait for a writer.
    const UniqueFd file(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat opened {};
    if (file.get() < 0 || ::fstat(file.get(), &opened) != 0 || !S_ISREG(opened.st_mode)) {
      refuse(path, "it changed while being read; only regular files come back");
      return;
    }
    // Read at most the size seen: a file that grew is cut there, one that shrank is shorter.
    std::string content(size, '\0');
    std::size_t got = 0;
    while (got < content.size()) {
      const ssize_t n = ::read(file.get(), content.data() + got, content.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    content.resize(got);
    write_entry(path, &content, "");
    ++files_;
    total_ += got;
  }

  void refuse(const std::string& path, const std::string& reason) { write_entry(path, nullptr, reason); }

  void write_entry(const std::string& path, const std::string* content, const std::string& refused) {
    std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
    archive_entry_set_pathname(entry.get(), path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), content ? static_cast<la_int64_t>(content->size()) : 0);
    if (!refused.empty()) {
      archive_entry_xattr_add_entry(entry.get(), kFolderTarRefusedAttribute, refused.data(),
                                    refused.size());
    }
    check(archive_write_header(writer_.get(), entry.get()));
    if (content && !content->empty()) {
      const auto written = archive_write_data(writer_.get(), content->data(), content->size());
      if (written < 0 || static_cast<std::size_t>(written) != content->size()) check(ARCHIVE_FATAL);
    }
  }

  void check(int rc) {
    if (rc >= ARCHIVE_OK) return;
    const char* reason = archive_error_string(writer_.get());
    throw std::runtime_error(std::string("Cannot write the tar: ") +
                             (reason ? reason : "libarchive gave no reason"));
  }

  FolderTarLimits limits_;
  std::string out_;
  std::unique_ptr<archive, ArchiveDeleter> writer_;
  std::uint64_t files_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t seen_ = 0;
  bool said_too_many_ = false;
};

}  // namespace

std::string pack_folder(const std::filesystem::path& folder, const FolderTarLimits& limits) {
  const UniqueFd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) {
    throw std::runtime_error("Cannot open " + folder.string() + " as a folder: " + std::strerror(errno));
  }
  FolderPacker packer(limits);
  packer.walk(dir.get(), "", 0);
  return packer.finish();
}

}  // namespace kg::sandbox
