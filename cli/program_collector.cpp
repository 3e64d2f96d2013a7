#include "program_collector.hpp"

#include "cli_errors.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace kg::cli {
namespace {

namespace fs = std::filesystem;

bool is_program_file_name(const std::string& name) {
  return name == "go.mod" || name == "go.sum" || (name.size() > 3 && name.ends_with(".go"));
}

bool is_inside(const fs::path& candidate, const fs::path& root) {
  const fs::path relative = candidate.lexically_relative(root);
  return !relative.empty() && *relative.begin() != "..";
}

std::string quoted(const fs::path& path) { return "\"" + path.string() + "\""; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UsageError("Cannot read " + quoted(path) + ": " + std::strerror(errno) +
                     ": check that it exists and that you may read it");
  }
  std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) {
    throw UsageError("Cannot read " + quoted(path) + ": the read failed part-way");
  }
  return content;
}

// Adds up what the tree holds and refuses it as soon as it passes a limit.
class TreeBudget {
 public:
  TreeBudget(const fs::path& root, const ProgramLimits& limits) : root_(root), limits_(limits) {}

  void add_file(std::uint64_t bytes) {
    if (++files_ > limits_.max_files) {
      throw UsageError(quoted(root_) + " has more than " + std::to_string(limits_.max_files) +
                       " program files (*.go, go.mod, go.sum): point exec at the program's own "
                       "directory");
    }
    total_bytes_ += bytes;
    if (total_bytes_ > limits_.max_total_bytes) {
      throw UsageError(quoted(root_) + " holds more than " +
                       describe_byte_count(limits_.max_total_bytes) +
                       " of program files: point exec at the program's own directory");
    }
  }

 private:
  fs::path root_;
  ProgramLimits limits_;
  std::size_t files_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Whether a symlink's target should be read as a program file; throws when the link is broken
// or leaves the tree. Links to directories are never followed (the tree is walked through the
// real directories), but one that leaves the tree is still refused.
bool accept_symlink(const fs::directory_entry& entry, const fs::path& root,
                    const fs::path& canonical_root, const std::string& relative) {
  const bool program_name = is_program_file_name(entry.path().filename().string());
  std::error_code error;
  const fs::file_status target_status = fs::status(entry.path(), error);
  const bool is_directory = !error && fs::is_directory(target_status);
  if (!program_name && !is_directory) return false;
  std::error_code read_error;
  const fs::path target = fs::read_symlink(entry.path(), read_error);
  if (error || !fs::exists(target_status)) {
    throw UsageError("symlink \"" + relative + "\" in " + quoted(root) + " points to " +
                     quoted(target) + ", which does not exist: fix or remove the link");
  }
  if (!is_inside(fs::canonical(entry.path()), canonical_root)) {
    throw UsageError("symlink \"" + relative + "\" in " + quoted(root) + " points to " +
                     quoted(target) +
                     ", outside the program directory: copy the file in or remove the link");
  }
  return !is_directory && fs::is_regular_file(target_status);
}

ProgramFiles collect_directory(const fs::path& root, const ProgramLimits& limits) {
  const fs::path canonical_root = fs::canonical(root);
  TreeBudget budget(root, limits);
  ProgramFiles files;
  std::error_code error;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    std::error_code entry_error;  // an entry that vanished mid-walk is simply not collected
    const bool is_symlink = entry.is_symlink(entry_error);
    if (name.starts_with(".")) {
      if (!is_symlink && entry.is_directory(entry_error)) it.disable_recursion_pending();
      continue;
    }
    const std::string relative = entry.path().lexically_relative(root).generic_string();
    const bool wanted =
        is_symlink ? accept_symlink(entry, root, canonical_root, relative)
                   : entry.is_regular_file(entry_error) && is_program_file_name(name);
    if (!wanted) continue;
    budget.add_file(fs::file_size(entry.path()));
    files.emplace(relative, read_file(entry.path()));
  }
  if (error) {
    throw UsageError("Cannot walk " + quoted(root) + ": " + error.message() +
                     ": check that you may read every directory under it");
  }
  if (files.empty()) {
    throw UsageError(quoted(root) +
                     " has no .go files: point exec at a Go file or at the directory that holds "
                     "the program");
  }
  return files;
}

ProgramFiles collect_single_file(const fs::path& path, const ProgramLimits& limits) {
  if (fs::file_size(path) > limits.max_total_bytes) {
    throw UsageError(quoted(path) + " is larger than " +
                     describe_byte_count(limits.max_total_bytes) +
                     ": a program sent to the daemon must stay under that");
  }
  return {{path.filename().string(), read_file(path)}};
}

}  // namespace

ProgramFiles collect_program(const std::string& path, const ProgramLimits& limits) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw UsageError("Cannot look at \"" + path + "\": " + error.message() +
                     ": check that you may read it and the directories above it");
  }
  if (!fs::exists(status)) {
    throw UsageError("\"" + path +
                     "\" does not exist: give a .go file, a directory holding the program, or - "
                     "to read main.go from standard input");
  }
  try {
    if (fs::is_directory(status)) return collect_directory(path, limits);
    if (fs::is_regular_file(status)) return collect_single_file(path, limits);
  } catch (const fs::filesystem_error& e) {
    throw UsageError("Cannot read the program at \"" + path + "\": " + e.code().message() +
                     " (" + e.path1().string() + ")");
  }
  throw UsageError("\"" + path + "\" is neither a regular file nor a directory: give a .go file, "
                   "a directory holding the program, or -");
}

ProgramFiles collect_program_from_stream(std::istream& in, const ProgramLimits& limits) {
  std::string content;
  char buffer[64 * 1024];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    content.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (content.size() > limits.max_total_bytes) {
      throw UsageError("standard input is larger than " +
                       describe_byte_count(limits.max_total_bytes) +
                       ": a program sent to the daemon must stay under that");
    }
  }
  return {{"main.go", std::move(content)}};
}

std::string describe_byte_count(std::uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes != 0 && bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace kg::cli
