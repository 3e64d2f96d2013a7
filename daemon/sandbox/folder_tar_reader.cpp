#include "folder_tar_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <set>

#include "utf8_text.hpp"

namespace kg::sandbox {
namespace {

constexpr const char* kRefusedAttribute = "kode-gopher.refused";  // sandbox/server/folder_tar.hpp
constexpr std::size_t kMaxReasonBytes = 400;
// The sandbox lists at most its own walk bound of entries; more is not a tar it wrote.
constexpr std::size_t kMaxEntries = 5000;
constexpr std::size_t kMaxWarnings = 20;

struct ReaderDeleter {
  void operator()(archive* a) const noexcept { archive_read_free(a); }
};

std::string shown_text(std::string_view text, std::size_t max_bytes) {
  std::string shown = json::to_valid_utf8(text.substr(0, json::utf8_boundary_before(text, max_bytes)));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return shown;
}

std::string refusal_of(archive_entry* entry) {
  archive_entry_xattr_reset(entry);
  const char* name = nullptr;
  const void* value = nullptr;
  std::size_t size = 0;
  while (archive_entry_xattr_next(entry, &name, &value, &size) == ARCHIVE_OK) {
    if (name != nullptr && std::string_view(name) == kRefusedAttribute) {
      const std::string_view reason(static_cast<const char*>(value), size);
      return reason.empty() ? "left out by the sandbox" : shown_text(reason, kMaxReasonBytes);
    }
  }
  return {};
}

const char* kind_of(archive_entry* entry) {
  if (archive_entry_hardlink(entry) != nullptr) return "a hard link";
  switch (archive_entry_filetype(entry)) {
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

class Collector {
 public:
  Collector(const FolderTarBounds& bounds, std::string_view prefix)
      : bounds_(bounds), prefix_(prefix) {}

  void warn(std::string_view name, const std::string& why) {
    if (contents.warnings.size() < kMaxWarnings) {
      contents.warnings.push_back(prefix_ + shown_text(name, 300) + ": " + why);
    } else if (contents.warnings.size() == kMaxWarnings) {
      contents.warnings.push_back(prefix_ + "…: more files were left out; only the first " +
                                  std::to_string(kMaxWarnings) + " are named");
    }
  }

  // Whether a file of `size` bytes named `name` may be kept; warns when not.
  bool admits(const std::string& name, std::uint64_t size) {
    if (contents.files.size() >= bounds_.max_files) {
      warn(name, "more than " + std::to_string(bounds_.max_files) + " files");
      return false;
    }
    if (size > bounds_.max_file_bytes) {
      warn(name, std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(bounds_.max_file_bytes) + " per file");
      return false;
    }
    if (total_ + size > bounds_.max_total_bytes) {
      warn(name, "over the limit of " + std::to_string(bounds_.max_total_bytes) +
                     " bytes for all files together");
      return false;
    }
    if (!names_.insert(name).second) {
      warn(name, "the same name twice in the sandbox's answer");
      return false;
    }
    total_ += size;
    return true;
  }

  FolderContents contents;

 private:
  FolderTarBounds bounds_;
  std::string prefix_;
  std::uint64_t total_ = 0;
  std::set<std::string> names_;
};

}  // namespace

std::string checked_out_file_name(std::string_view name) {
  if (name.empty() || name.size() > 512 || !json::is_valid_utf8(name)) return {};
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view segment = name.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == ".." || segment.size() > 255) return {};
    for (const char c : segment) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return {};
    }
    start = end + 1;
  }
  return std::string(name);
}

FolderContents read_folder_tar(std::string_view tar, const FolderTarBounds& bounds,
                               std::string_view shown_prefix) {
  Collector collector(bounds, shown_prefix);
  std::unique_ptr<archive, ReaderDeleter> reader(archive_read_new());
  archive_read_support_format_tar(reader.get());
  if (archive_read_open_memory(reader.get(), tar.data(), tar.size()) != ARCHIVE_OK) {
    collector.warn("", "the sandbox's answer is not a tar; no files came back");
    return std::move(collector.contents);
  }
  archive_entry* entry = nullptr;
  std::size_t entries = 0;
  for (;;) {
    const int rc = archive_read_next_header(reader.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN || ++entries > kMaxEntries) {
      collector.warn("", "the sandbox's answer broke off or holds too many entries; the files "
                         "after that point did not come back");
      break;
    }
    const char* raw = archive_entry_pathname(entry);
    const std::string_view raw_name = raw ? raw : "";
    if (archive_entry_filetype(entry) == AE_IFDIR && archive_entry_hardlink(entry) == nullptr) continue;
    const std::string name = checked_out_file_name(raw_name);
    if (name.empty()) {
      collector.warn(raw_name, "a name that is not a plain relative path (absolute, '..', "
                               "empty segments, control characters or invalid UTF-8)");
      continue;
    }
    if (const std::string refused = refusal_of(entry); !refused.empty()) {
      collector.warn(name, refused);
      continue;
    }
    if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != nullptr) {
      collector.warn(name, std::string(kind_of(entry)) + "; only regular files come back");
      continue;
    }
    const la_int64_t size = archive_entry_size(entry);
    if (size < 0 || !collector.admits(name, static_cast<std::uint64_t>(size))) continue;
    std::string content(static_cast<std::size_t>(size), '\0');
    const la_ssize_t got = size == 0 ? 0 : archive_read_data(reader.get(), content.data(), content.size());
    if (got != size) {
      collector.warn(name, "the sandbox's answer broke off inside this file");
      break;
    }
    collector.contents.files.push_back(FolderFile{name, std::move(content)});
  }
  return std::move(collector.contents);
}

}  // namespace kg::sandbox
