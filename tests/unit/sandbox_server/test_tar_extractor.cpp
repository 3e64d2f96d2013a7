#include <archive_entry.h>
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "in_memory_tar.hpp"
#include "scratch_directory.hpp"
#include "tar_extractor.hpp"

using kg::sandbox::TarEntryRejected;
using kg::sandbox::TarFormatError;
using kg::sandbox::TarLimitExceeded;
using kg::sandbox::TarLimits;
using kg::sandbox::testing::InMemoryTar;
using kg::sandbox::testing::file_contents;
using kg::sandbox::testing::ScratchDirectory;

namespace {

kg::sandbox::TarExtractionSummary extract(const std::string& tar,
                                          const std::filesystem::path& destination,
                                          TarLimits limits = {}) {
  std::size_t offset = 0;
  const kg::sandbox::TarByteSource source = [&](std::span<char> buffer) {
    const std::size_t count = std::min(buffer.size(), tar.size() - offset);
    tar.copy(buffer.data(), count, offset);
    offset += count;
    return count;
  };
  return kg::sandbox::extract_tar(source, destination, limits);
}

unsigned permissions(const std::filesystem::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info.st_mode & 07777;
}

}  // namespace

TEST_CASE("extract_tar writes a tree with nested directories") {
  ::umask(022);
  ScratchDirectory scratch;
  const std::string tar = InMemoryTar()
                              .directory("./")
                              .directory("src/")
                              .directory("src/pkg/")
                              .file("src/pkg/lib.go", "package pkg\n", 0600)
                              .file("./main.go", "package main\n")
                              .file("run.sh", "#!/bin/sh\n", 0700)
                              .file("deep/implied/dir.txt", "x")
                              .finish();
  const auto summary = extract(tar, scratch.path());
  CHECK(summary.files == 4);
  CHECK(summary.bytes == 12 + 13 + 10 + 1);
  CHECK(file_contents(scratch.path() / "src/pkg/lib.go") == "package pkg\n");
  CHECK(file_contents(scratch.path() / "main.go") == "package main\n");
  CHECK(file_contents(scratch.path() / "deep/implied/dir.txt") == "x");
  CHECK(permissions(scratch.path() / "src/pkg/lib.go") == 0644);
  CHECK(permissions(scratch.path() / "run.sh") == 0755);
  CHECK(permissions(scratch.path() / "src/pkg") == 0755);
  struct stat info {};
  REQUIRE(::stat((scratch.path() / "main.go").c_str(), &info) == 0);
  CHECK(info.st_mtime == 1'700'000'000);  // the time recorded in the tar
}

TEST_CASE("extract_tar refuses hostile entries, each with its own message") {
  ScratchDirectory scratch;
  const auto destination = scratch.path() / "app";
  std::filesystem::create_directory(destination);

  CHECK_THROWS_WITH_AS(extract(InMemoryTar().file("../x", "boom").finish(), destination),
                       "Tar entry \"../x\" has a '..' segment: paths must stay inside the target "
                       "directory",
                       TarEntryRejected);
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().file("a/../../x", "boom").finish(), destination),
                       "Tar entry \"a/../../x\" has a '..' segment: paths must stay inside the "
                       "target directory",
                       TarEntryRejected);
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().file("/etc/x", "boom").finish(), destination),
                       "Tar entry \"/etc/x\" is an absolute path: use paths relative to the target "
                       "directory",
                       TarEntryRejected);
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().symlink("link", "/etc").finish(), destination),
                       "Tar entry \"link\" is a symbolic link: only regular files and directories "
                       "can be uploaded",
                       TarEntryRejected);
  CHECK_THROWS_WITH_AS(
      extract(InMemoryTar().file("a", "1").hardlink("b", "/etc/shadow").finish(), destination),
      "Tar entry \"b\" is a hard link: only regular files and directories can be uploaded",
      TarEntryRejected);
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().special("pipe", AE_IFIFO).finish(), destination),
                       "Tar entry \"pipe\" is a FIFO: only regular files and directories can be "
                       "uploaded",
                       TarEntryRejected);
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().special("null", AE_IFCHR).finish(), destination),
                       "Tar entry \"null\" is a character device: only regular files and "
                       "directories can be uploaded",
                       TarEntryRejected);
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().special("disk", AE_IFBLK).finish(), destination),
                       "Tar entry \"disk\" is a block device: only regular files and directories "
                       "can be uploaded",
                       TarEntryRejected);
  CHECK_FALSE(std::filesystem::exists(scratch.path() / "x"));
  CHECK_FALSE(std::filesystem::exists(destination / "link"));
  CHECK_FALSE(std::filesystem::exists(destination / "pipe"));
}

TEST_CASE("extract_tar does not write through a symlink already in the destination") {
  ScratchDirectory scratch;
  const auto destination = scratch.path() / "app";
  std::filesystem::create_directories(scratch.path() / "outside");
  std::filesystem::create_directory(destination);
  std::filesystem::create_directory_symlink(scratch.path() / "outside", destination / "out");
  CHECK_THROWS_WITH_AS(extract(InMemoryTar().file("out/x", "boom").finish(), destination),
                       ("Tar entry \"out/x\" cannot be written: Cannot extract through "
                        "symlink " + (destination / "out/x").string()).c_str(),
                       TarEntryRejected);
  CHECK_FALSE(std::filesystem::exists(scratch.path() / "outside" / "x"));
}

TEST_CASE("extract_tar enforces the size and entry limits") {
  ScratchDirectory scratch;
  CHECK_THROWS_WITH_AS(
      extract(InMemoryTar().file("small", "12345").file("big", "678901").finish(), scratch.path(),
              TarLimits{10, 100}),
      "The tar's files exceed the upload limit of 10 bytes (at entry \"big\"): upload fewer or "
      "smaller files",
      TarLimitExceeded);
  CHECK_THROWS_WITH_AS(
      extract(InMemoryTar().directory("d/").file("d/a", "").file("d/b", "").finish(),
              scratch.path(), TarLimits{1000, 2}),
      "The tar has more than 2 entries: upload fewer files at once", TarLimitExceeded);
  const auto summary = extract(InMemoryTar().file("exact", "1234567890").finish(),
                               scratch.path(), TarLimits{10, 1});
  CHECK(summary.files == 1);
  CHECK(summary.bytes == 10);
}

TEST_CASE("extract_tar refuses a body that is not a tar") {
  ScratchDirectory scratch;
  CHECK_THROWS_WITH_AS(extract(std::string(2000, 'x'), scratch.path()),
                       "The upload is not a valid tar archive (at its start): Unrecognized "
                       "archive format; send an uncompressed tar",
                       TarFormatError);
}
