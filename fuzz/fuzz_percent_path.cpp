// Fuzzes the sandbox server's path handling for GET /download/<path>, /list/<path>,
// /exists/<path> and the `dir` of /upload-tar: percent_decode, then WorkdirConfinement::resolve
// against a workdir full of traps (kept for the whole run, built on first use):
//   <root>/app/src/main.go, <root>/app/file.txt        what a program leaves
//   <root>/app/link_in -> src                          a symlink that stays inside
//   <root>/app/link_out -> ..                          one that leaves
//   <root>/app/link_abs -> <root>                      one that leaves by an absolute path
//   <root>/app/dangling_out -> ../missing/x            a dangling one that would leave
//   <root>/app/loop -> loop                            a loop
//   <root>/app2/, <root>/secret                        neighbours that share a prefix
// The confinement is made through <root>/app_via_link -> app, so the workdir itself is reached
// through a symlink. The input is the encoded path; a decoded path that starts with '@' has the
// '@' replaced by the workdir's real path, so absolute paths inside it get fuzzed too.
//
// Invariants: percent_decode agrees with a straightforward reference decoder, throws only
// InvalidPathError, never decodes an escape into a NUL and never grows; resolve throws only
// InvalidPathError or PathEscapeError; what it returns is absolute, lexically normal, inside the
// workdir component by component, and what the OS reaches through it (its deepest existing
// ancestor, symlinks followed) is inside the workdir too; `exists` tells the truth.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "fuzz_invariant.hpp"
#include "path_confinement.hpp"

namespace {

namespace fs = std::filesystem;
using kg::sandbox::InvalidPathError;
using kg::sandbox::PathEscapeError;
using kg::sandbox::WorkdirConfinement;

struct Fixture {
  fs::path root;
  fs::path workdir;  // real path
  std::optional<WorkdirConfinement> confinement;
};

fs::path make_scratch_root() {
  std::string pattern = (fs::temp_directory_path() / "kg-fuzz-path-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    kg::fuzz::invariant_broken("mkdtemp", "cannot create a scratch folder for the fixture",
                               __FILE__, __LINE__);
  }
  return fs::canonical(pattern);
}

void remove_scratch_root(const fs::path& root) {
  std::error_code ignored;
  fs::remove_all(root, ignored);
}

const Fixture& fixture() {
  static Fixture built = [] {
    Fixture f;
    f.root = make_scratch_root();
    f.workdir = f.root / "app";
    fs::create_directories(f.workdir / "src");
    fs::create_directories(f.root / "app2");
    std::ofstream(f.workdir / "src" / "main.go") << "package main\n";
    std::ofstream(f.workdir / "file.txt") << "x";
    std::ofstream(f.root / "secret") << "secret";
    fs::create_symlink("src", f.workdir / "link_in");
    fs::create_symlink("..", f.workdir / "link_out");
    fs::create_symlink(f.root, f.workdir / "link_abs");
    fs::create_symlink("../missing/x", f.workdir / "dangling_out");
    fs::create_symlink("loop", f.workdir / "loop");
    fs::create_symlink("app", f.root / "app_via_link");
    f.confinement.emplace(f.root / "app_via_link");
    static const fs::path root_to_remove = f.root;
    std::atexit([] { remove_scratch_root(root_to_remove); });
    return f;
  }();
  return built;
}

// The reference: the plain definition of percent-decoding, written independently.
std::optional<std::string> reference_decode(std::string_view encoded) {
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      out += encoded[i];
      continue;
    }
    if (encoded.size() - i < 3) return std::nullopt;
    const std::string hex(encoded.substr(i + 1, 2));
    if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return std::nullopt;
    const char byte = static_cast<char>(std::stoi(hex, nullptr, 16));
    if (byte == '\0') return std::nullopt;
    out += byte;
    i += 2;
  }
  return out;
}

bool lies_within(const fs::path& candidate, const fs::path& root) {
  auto c = candidate.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++c) {
    if (c == candidate.end() || *c != *r) return false;
  }
  return true;
}

// The deepest ancestor of `path` (itself included) that exists when symlinks are followed.
fs::path deepest_existing(fs::path path) {
  std::error_code error;
  while (!fs::exists(fs::status(path, error)) && path.has_relative_path()) {
    path = path.parent_path();
  }
  return path;
}

void check_resolved(const std::string& decoded, const kg::sandbox::ConfinedPath& confined) {
  const Fixture& f = fixture();
  const fs::path& real = confined.real_path;
  const std::string where = "\"" + decoded + "\" resolved to " + real.string();
  KG_FUZZ_CHECK(real.is_absolute(), where + ": not absolute");
  KG_FUZZ_CHECK(real == real.lexically_normal(), where + ": not lexically normal");
  KG_FUZZ_CHECK(lies_within(real, f.workdir), where + ": outside the workdir " + f.workdir.string());
  const fs::path reached = deepest_existing(real);
  std::error_code error;
  const fs::path reached_real = fs::canonical(reached, error);
  KG_FUZZ_CHECK(!error, where + ": cannot canonicalize " + reached.string() + ": " + error.message());
  KG_FUZZ_CHECK(lies_within(reached_real, f.workdir),
                where + ": the OS reaches " + reached_real.string() + ", outside the workdir");
  const bool exists = fs::exists(fs::symlink_status(real, error));
  KG_FUZZ_CHECK(confined.exists == exists, where + ": `exists` is wrong");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view encoded(reinterpret_cast<const char*>(data), size);
  const auto expected = reference_decode(encoded);
  std::string decoded;
  try {
    decoded = kg::sandbox::percent_decode(encoded);
  } catch (const InvalidPathError& e) {
    KG_FUZZ_CHECK(!expected, "percent_decode refused a valid path: " + std::string(e.what()));
    return 0;
  }
  KG_FUZZ_CHECK(expected && decoded == *expected,
                "percent_decode disagrees with the reference on \"" + std::string(encoded) + "\"");
  KG_FUZZ_CHECK(decoded.size() <= encoded.size(), "decoding made the path longer");
  // A raw NUL passes through (resolve refuses it); an escape never makes one.
  KG_FUZZ_CHECK(std::count(decoded.begin(), decoded.end(), '\0') ==
                    std::count(encoded.begin(), encoded.end(), '\0'),
                "decoding produced a NUL byte");

  const Fixture& f = fixture();
  if (decoded.starts_with('@')) decoded = f.workdir.string() + decoded.substr(1);
  kg::sandbox::ConfinedPath confined;
  try {
    confined = f.confinement->resolve(decoded);
  } catch (const InvalidPathError&) {
    return 0;  // malformed or unresolvable: a 400, as it should be
  } catch (const PathEscapeError&) {
    return 0;  // outside: a 403, as it should be
  }
  check_resolved(decoded, confined);
  return 0;
}
