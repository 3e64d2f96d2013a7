// Reads just enough Go syntax to normalize a program without a Go parser: the package clause,
// the import paths and the top-level function declarations of one file. Comments, strings, runes and raw
// strings are skipped properly, so `package` or `func main` inside them never count, and a
// method (`func (r T) run()`) is never taken for a function. A leading UTF-8 BOM and CRLF line
// ends are accepted.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::go_program {

struct TopLevelFunc {
  std::string name;
  int line = 0;  // 1-based
  // What follows the name up to the body's `{`: its tokens (an identifier, one punctuation
  // character, or a literal's text each; at most kMaxSignatureTokens), and its source text with
  // every run of white space made one space (at most kMaxSignatureText bytes, then "…"). A
  // snippet's `run` is checked against the contract with them (run_signature.hpp).
  std::vector<std::string> signature_tokens;
  std::string signature_text;
  static constexpr std::size_t kMaxSignatureTokens = 256;
  static constexpr std::size_t kMaxSignatureText = 200;
};

struct GoImport {
  std::string path;  // as written between the quotes ("C" for cgo)
  int line = 0;      // 1-based
};

struct GoFileOutline {
  std::optional<std::string> package_name;  // nullopt: no package clause found
  int package_line = 0;
  std::size_t package_name_offset = 0;  // byte offset of the name, for rewriting the clause
  std::vector<TopLevelFunc> functions;  // top-level, non-method, in source order
  std::vector<GoImport> imports;  // the import declarations' paths, in source order
};

GoFileOutline outline_go_file(std::string_view source);

}  // namespace kg::go_program
