#include "path_confinement.hpp"

#include <algorithm>
#include <system_error>

namespace kg::sandbox {
namespace {

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool lies_within(const std::filesystem::path& candidate, const std::filesystem::path& root) {
  // Component-wise, so that /app2 is not taken to be inside /app.
  const auto [root_end, candidate_end] =
      std::mismatch(root.begin(), root.end(), candidate.begin(), candidate.end());
  return root_end == root.end();
}

}  // namespace

std::string percent_decode(std::string_view encoded) {
  std::string decoded;
  decoded.reserve(encoded.size());
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      decoded += encoded[i];
      continue;
    }
    const int high = i + 1 < encoded.size() ? hex_digit_value(encoded[i + 1]) : -1;
    const int low = i + 2 < encoded.size() ? hex_digit_value(encoded[i + 2]) : -1;
    if (high < 0 || low < 0) {
      throw InvalidPathError("Invalid percent escape \"" +
                             std::string(encoded.substr(i, 3)) + "\" at position " +
                             std::to_string(i) + " of path \"" + std::string(encoded) +
                             "\": encode '%' as %25");
    }
    const char byte = static_cast<char>(high * 16 + low);
    if (byte == '\0') {
      throw InvalidPathError("Path \"" + std::string(encoded) +
                             "\" contains an encoded NUL byte (%00), which no file name can hold");
    }
    decoded += byte;
    i += 2;
  }
  return decoded;
}

WorkdirConfinement::WorkdirConfinement(const std::filesystem::path& workdir) {
  std::error_code error;
  workdir_ = std::filesystem::canonical(workdir, error);
  if (error) {
    throw std::runtime_error("Workdir " + workdir.string() + " cannot be used: " +
                             error.message() + " (create it or pass another --workdir)");
  }
  if (!std::filesystem::is_directory(workdir_, error)) {
    throw std::runtime_error("Workdir " + workdir.string() +
                             " is not a directory (pass a directory as --workdir)");
  }
}

ConfinedPath WorkdirConfinement::resolve(std::string_view decoded) const {
  if (decoded.find('\0') != std::string_view::npos) {
    throw InvalidPathError("Path contains a NUL byte, which no file name can hold");
  }
  const std::filesystem::path requested{std::string(decoded)};
  const std::filesystem::path joined = requested.is_absolute() ? requested : workdir_ / requested;
  std::error_code error;
  // weakly_canonical resolves the existing prefix (following symlinks) and normalizes the rest
  // lexically, so "missing/../../etc" still lands outside and is caught below.
  std::filesystem::path real = std::filesystem::weakly_canonical(joined, error);
  if (error) {
    throw InvalidPathError("Cannot resolve path \"" + std::string(decoded) + "\": " +
                           error.message());
  }
  if (!real.empty() && !real.has_filename()) real = real.parent_path();  // drop a trailing '/'
  if (!lies_within(real, workdir_)) {
    throw PathEscapeError("Path \"" + std::string(decoded) + "\" resolves to " + real.string() +
                          ", outside the workdir " + workdir_.string() +
                          ": use a path inside the workdir");
  }
  const bool exists = std::filesystem::exists(std::filesystem::symlink_status(real, error));
  return ConfinedPath{real, exists};
}

}  // namespace kg::sandbox
