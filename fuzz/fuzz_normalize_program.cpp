// Fuzzes the Go program normalizer of plugins/go-program (normalize_program and the Go source
// outline under it), which turns a caller's file map into the tree that is built in /app.
//
// Input: a file map in a readable text form, so seeds are easy to write by hand —
//   === <path>            starts a file; the lines up to the next "=== " line are its content
//   === +extra_imports    starts a list of extra imports, one per line
// Bytes before the first "=== " line are ignored.
//
// Invariants: only InvalidInputError escapes, with a message; a success keeps every input file
// in order and only appends generated ones; a program (package main) is left byte for byte, a
// snippet has exactly one `func run`, its root files' package clauses say `main` afterwards and
// nothing else of them changed; every output path passes check_source_path; the outline of any
// file points at its real package name and counts lines from 1.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_invariant.hpp"
#include "go_source_scanner.hpp"
#include "program_normalizer.hpp"
#include "snippet_wrapper.hpp"

namespace {

using kg::go_program::GoFileOutline;
using kg::go_program::outline_go_file;
using kg::plugin::SourceFile;

constexpr std::string_view kMarker = "=== ";
constexpr std::string_view kExtraImports = "+extra_imports";

struct FuzzedRequest {
  std::vector<SourceFile> files;
  std::vector<std::string> extra_imports;
};

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto length = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(0, length));  // keeps its '\n'
    text.remove_prefix(length);
  }
  return lines;
}

std::string without_newline(std::string_view line) {
  if (line.ends_with('\n')) line.remove_suffix(1);
  return std::string(line);
}

FuzzedRequest parse_fuzzed_request(std::string_view input) {
  FuzzedRequest request;
  bool in_imports = false;
  bool in_file = false;
  for (const auto line : lines_of(input)) {
    if (line.starts_with(kMarker)) {
      const std::string header = without_newline(line.substr(kMarker.size()));
      in_imports = header == kExtraImports;
      in_file = !in_imports;
      if (in_file) request.files.push_back({header, ""});
    } else if (in_imports) {
      request.extra_imports.push_back(without_newline(line));
    } else if (in_file) {
      request.files.back().content += line;
    }
  }
  return request;
}

int line_count(std::string_view source) {
  return 1 + static_cast<int>(std::count(source.begin(), source.end(), '\n'));
}

void check_outline(const std::string& path, std::string_view source, const GoFileOutline& outline) {
  if (outline.package_name) {
    const auto& name = *outline.package_name;
    KG_FUZZ_CHECK(!name.empty(), path + ": empty package name");
    KG_FUZZ_CHECK(outline.package_name_offset + name.size() <= source.size(),
                  path + ": package name offset past the end of the file");
    KG_FUZZ_CHECK(source.substr(outline.package_name_offset, name.size()) == name,
                  path + ": the package name offset does not point at \"" + name + "\"");
    KG_FUZZ_CHECK(outline.package_line >= 1 && outline.package_line <= line_count(source),
                  path + ": package line out of range");
  } else {
    KG_FUZZ_CHECK(outline.functions.empty(), path + ": functions found without a package clause");
  }
  for (const auto& func : outline.functions) {
    KG_FUZZ_CHECK(!func.name.empty(), path + ": a function without a name");
    KG_FUZZ_CHECK(func.line >= 1 && func.line <= line_count(source),
                  path + ": func " + func.name + " on line " + std::to_string(func.line) +
                      " of a " + std::to_string(line_count(source)) + "-line file");
  }
}

bool is_root_go_file(const std::string& path) {
  return path.find('/') == std::string::npos && path.ends_with(".go");
}

// A snippet's root file may differ from the caller's only in its package name, now `main`.
void check_rewritten_clause(const SourceFile& before, const SourceFile& after,
                            const std::string& package_name) {
  const auto outline_before = outline_go_file(before.content);
  const auto offset = outline_before.package_name_offset;
  const std::string expected = before.content.substr(0, offset) + "main" +
                               before.content.substr(offset + package_name.size());
  KG_FUZZ_CHECK(after.content == expected,
                before.path + ": the snippet's file changed beyond its package clause");
  const auto outline_after = outline_go_file(after.content);
  KG_FUZZ_CHECK(outline_after.package_name == std::string("main"),
                before.path + ": after rewriting, the package clause does not say main");
  KG_FUZZ_CHECK(outline_after.functions.size() == outline_before.functions.size(),
                before.path + ": rewriting the package clause changed the functions found");
}

void check_normalized(const FuzzedRequest& request,
                      const kg::go_program::NormalizedProgram& program) {
  const auto& in = request.files;
  const auto& out = program.files;
  KG_FUZZ_CHECK(out.size() >= in.size(), "the normalizer dropped files");
  std::string package_name;
  int runs = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    KG_FUZZ_CHECK(out[i].path == in[i].path, "file #" + std::to_string(i) + " was renamed or moved");
    if (!is_root_go_file(in[i].path)) {
      KG_FUZZ_CHECK(out[i].content == in[i].content, in[i].path + ": a non-root file changed");
      continue;
    }
    const auto outline = outline_go_file(in[i].content);
    KG_FUZZ_CHECK(outline.package_name.has_value(), in[i].path + ": accepted without a package");
    package_name = *outline.package_name;
    for (const auto& func : outline.functions) runs += func.name == "run" ? 1 : 0;
  }
  KG_FUZZ_CHECK(!package_name.empty(), "accepted without a root .go file");
  const bool wrapped = program.mode == kg::plugin::Mode::wrapped;
  KG_FUZZ_CHECK(wrapped == (package_name != "main"),
                "mode does not follow the package name " + package_name);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!is_root_go_file(in[i].path)) continue;
    if (wrapped) {
      check_rewritten_clause(in[i], out[i], package_name);
    } else {
      KG_FUZZ_CHECK(out[i].content == in[i].content, in[i].path + ": a program file changed");
    }
  }
  std::vector<std::string> generated;
  for (std::size_t i = in.size(); i < out.size(); ++i) generated.push_back(out[i].path);
  std::vector<std::string> expected_generated;
  if (wrapped) {
    KG_FUZZ_CHECK(runs == 1, "a snippet was accepted with " + std::to_string(runs) + " func run");
    expected_generated.emplace_back(kg::go_program::kWrapperFileName);
  }
  if (!request.extra_imports.empty()) {
    expected_generated.emplace_back(kg::go_program::kExtraImportsFileName);
  }
  KG_FUZZ_CHECK(generated == expected_generated, "unexpected generated files");
  for (const auto& file : out) kg::go_program::check_source_path(file.path);  // must not throw
  const bool has_go_mod = std::any_of(in.begin(), in.end(),
                                      [](const SourceFile& f) { return f.path == "go.mod"; });
  KG_FUZZ_CHECK(program.user_go_mod == has_go_mod, "user_go_mod does not match the files");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const FuzzedRequest request = parse_fuzzed_request(input);
  for (const auto& file : request.files) {
    check_outline(file.path, file.content, outline_go_file(file.content));
  }
  // The whole input as one file too: the outline must cope with any bytes.
  check_outline("<input>", input, outline_go_file(input));
  kg::go_program::NormalizedProgram program;
  try {
    program = kg::go_program::normalize_program(request.files, request.extra_imports);
  } catch (const kg::plugin::InvalidInputError& e) {
    KG_FUZZ_CHECK(std::string_view(e.what()).size() > 0, "an InvalidInputError without a message");
    return 0;
  }
  check_normalized(request, program);  // outside the try: a throw here is a bug, not a refusal
  return 0;
}
