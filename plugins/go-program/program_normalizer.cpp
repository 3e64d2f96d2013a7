#include "program_normalizer.hpp"

#include <map>
#include <set>

#include "go_source_scanner.hpp"
#include "run_signature.hpp"
#include "snippet_wrapper.hpp"

namespace kg::go_program {
namespace {

using plugin::InvalidInputError;

constexpr std::size_t kMaxFiles = 1000;
constexpr std::size_t kMaxSegmentBytes = 255;  // NAME_MAX of Linux file systems
constexpr std::size_t kMaxPathBytes = 1024;
constexpr std::size_t kQuotedPathBytes = 100;  // a message shows at most this much of a path

// A path as a message shows it: control bytes escaped (a NUL must not end the message), and a
// long one cut with its length named.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kQuotedPathBytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += text[i];
    }
  }
  out += "\"";
  if (text.size() > kQuotedPathBytes) out += "… (" + std::to_string(text.size()) + " bytes)";
  return out;
}

// Exactly one declaration of `name` among the root files, else InvalidInputError.
void require_exactly_one(const std::vector<std::pair<std::string, int>>& found,
                         const std::string& name, const std::string& none_message) {
  if (found.empty()) throw InvalidInputError(none_message);
  if (found.size() > 1) {
    throw InvalidInputError("`func " + name + "` is declared more than once (" + found[0].first +
                            ":" + std::to_string(found[0].second) + " and " + found[1].first + ":" +
                            std::to_string(found[1].second) + "); keep exactly one");
  }
}

}  // namespace

void check_source_path(const std::string& path) {
  if (path.empty()) throw InvalidInputError("a file has an empty path; give every file a name");
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) {
    throw InvalidInputError("file path " + quoted(path) +
                            " has a NUL or backslash; use '/'-separated relative paths");
  }
  if (path.size() > kMaxPathBytes) {
    throw InvalidInputError("file path " + quoted(path) + " is longer than " +
                            std::to_string(kMaxPathBytes) + " bytes; use shorter paths");
  }
  if (path.front() == '/') {
    throw InvalidInputError("file path " + quoted(path) +
                            " is absolute; use a path relative to the program's root");
  }
  std::size_t start = 0;
  for (;;) {
    const auto slash = path.find('/', start);
    const auto segment = path.substr(start, slash == std::string::npos ? std::string::npos
                                                                        : slash - start);
    if (segment.empty() || segment == "." || segment == "..") {
      throw InvalidInputError("file path " + quoted(path) + " has an empty, '.' or '..' segment; " +
                              "paths must stay inside the program");
    }
    if (segment.size() > kMaxSegmentBytes) {
      throw InvalidInputError("file path " + quoted(path) + " has a name longer than " +
                              std::to_string(kMaxSegmentBytes) +
                              " bytes, more than file systems allow; use shorter names");
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (path == "persist" || path.starts_with("persist/")) {
    throw InvalidInputError("file path " + quoted(path) +
                            ": /app/persist is the session's scratch folder, kept across its calls "
                            "(a program writes there itself); put helper packages in another folder");
  }
  if (path == "out" || path.starts_with("out/")) {
    throw InvalidInputError("file path " + quoted(path) +
                            ": /app/out is where a program leaves files for you, returned after "
                            "the call (docs/mcp.md, \"Files out\"); put helper packages in another "
                            "folder");
  }
}

NormalizedProgram normalize_program(const std::vector<plugin::SourceFile>& files,
                                    const std::vector<std::string>& extra_imports) {
  if (files.empty()) throw InvalidInputError("no files were sent; send at least main.go");
  if (files.size() > kMaxFiles) {
    throw InvalidInputError(std::to_string(files.size()) + " files were sent; the limit is " +
                            std::to_string(kMaxFiles));
  }
  NormalizedProgram program;
  std::map<std::string, const plugin::SourceFile*> root_go_files;  // sorted: stable messages
  std::set<std::string> paths;
  for (const auto& file : files) {
    check_source_path(file.path);
    // A second file of one path (JSON allows duplicate keys) would be checked as the first
    // but uploaded over it, and its package clause rewritten at the first one's offset.
    if (!paths.insert(file.path).second) {
      throw InvalidInputError("file path " + quoted(file.path) +
                              " is sent more than once; send each file once");
    }
    if (file.path == ".kode-gopher" || file.path.starts_with(".kode-gopher/")) {
      throw InvalidInputError("file path " + quoted(file.path) +
                              " is inside .kode-gopher/, where kode-gopher writes the result; "
                              "rename it");
    }
    if (file.path == kWrapperFileName || file.path == kExtraImportsFileName) {
      throw InvalidInputError(file.path + " is a name kode-gopher generates; rename your file");
    }
    if (file.path == "go.mod") program.user_go_mod = true;
    if (file.path.find('/') == std::string::npos && file.path.ends_with(".go")) {
      root_go_files.emplace(file.path, &file);
    }
  }
  if (root_go_files.empty()) {
    throw InvalidInputError("no .go file at the root: the entry package's files must have paths "
                            "without '/', e.g. \"main.go\"");
  }
  // Each .go file read once. cgo: with CGO_ENABLED=0 the go tool leaves a file that imports "C"
  // out of the build without a word, so the program would fail later with errors about names it
  // lost (docs/runtimes.md).
  std::map<std::string, GoFileOutline> outlines;
  for (const auto& file : files) {
    if (!file.path.ends_with(".go")) continue;
    const GoFileOutline& outline = outlines.emplace(file.path, outline_go_file(file.content)).first->second;
    for (const auto& import : outline.imports) {
      if (import.path == "C") {
        throw InvalidInputError(
            file.path + ":" + std::to_string(import.line) +
            ": imports \"C\", but cgo is not available: kode-gopher builds with CGO_ENABLED=0 "
            "and sandboxes have no C compiler; use a pure-Go package instead");
      }
    }
  }
  std::string package_name, package_file;
  std::vector<std::pair<std::string, int>> mains, runs;  // file, line
  const TopLevelFunc* run_func = nullptr;
  for (const auto& [path, file] : root_go_files) {
    const GoFileOutline& outline = outlines.at(path);
    if (!outline.package_name) {
      throw InvalidInputError(path + " has no package clause; start it with `package main`");
    }
    if (package_name.empty()) {
      package_name = *outline.package_name;
      package_file = path;
    } else if (*outline.package_name != package_name) {
      throw InvalidInputError("root files declare different packages: " + package_file +
                              " has `package " + package_name + "`, " + path + " has `package " +
                              *outline.package_name + "`; use one package name for all root files");
    }
    for (const auto& func : outline.functions) {
      if (func.name == "main") mains.emplace_back(path, func.line);
      if (func.name == "run") {
        runs.emplace_back(path, func.line);
        run_func = &func;
      }
    }
  }
  program.files = files;
  if (package_name == "main") {
    program.mode = plugin::Mode::verbatim;
    require_exactly_one(mains, "main", "package main has no `func main()`; add one to a root file");
  } else {
    program.mode = plugin::Mode::wrapped;
    if (!mains.empty()) {
      throw InvalidInputError("a snippet (package " + package_name +
                              ") must not declare `func main` (" + mains[0].first + ":" + std::to_string(mains[0].second) +
                              "); kode-gopher supplies main: declare `func run(ctx context.Context) "
                              "(any, error)`, or make it a program with `package main`");
    }
    require_exactly_one(runs, "run",
                        "snippet package " + package_name + " has no `func run`; declare "
                        "`func run(ctx context.Context) (any, error)` in a root file");
    // Checked here, not by the compiler, so the message names the caller's own line, the same
    // for every runtime (run_signature.hpp).
    if (const auto problem = run_signature_problem(run_func->signature_tokens)) {
      throw InvalidInputError(
          runs[0].first + ":" + std::to_string(runs[0].second) + ": `func run" +
          run_func->signature_text + "` does not have the signature a snippet's run needs: " +
          *problem + ". Declare it as `func run(ctx context.Context) (any, error)` and return "
          "your value as the first result (it comes back JSON-encoded as result.value) with a "
          "nil error, or nil and an error; or make the code a program (package main with func "
          "main)");
    }
    for (auto& file : program.files) {
      if (!root_go_files.contains(file.path)) continue;
      file.content.replace(outlines.at(file.path).package_name_offset, package_name.size(), "main");
    }
    program.files.push_back({kWrapperFileName, snippet_wrapper_source()});
  }
  for (const auto& path : extra_imports) {
    // The go tool would drop the generated file that imports "C" without a word (above).
    if (path == "C") {
      throw InvalidInputError(
          "extra_imports: \"C\" is cgo, which is not available: kode-gopher builds with "
          "CGO_ENABLED=0 and sandboxes have no C compiler; leave it out and use a pure-Go "
          "package instead");
    }
  }
  if (!extra_imports.empty()) {
    program.files.push_back({kExtraImportsFileName, extra_imports_source(extra_imports)});
  }
  return program;
}

}  // namespace kg::go_program
