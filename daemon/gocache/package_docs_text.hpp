// What lookup_package_docs answers, made from `go doc`'s text (docs/mcp.md, "lookup_package_docs"):
// a whole package becomes a short index of its names (its full `go doc` runs to 20 K characters
// for the larger curated packages, most of it not what the agent asked for), a failure loses
// the go command's noise about GOPROXY=off, and a misspelled symbol gets the names near it.
// Pure functions; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kg::sandbox {

// The most a package index may hold; past it, the names that do not fit are counted instead.
inline constexpr std::size_t kPackageIndexMaxChars = 6000;

// `go doc <package>` (header, package comment, summary of exported declarations) as an index:
// the header, the package comment's first paragraph, and the declarations one per line (each
// cut at 160 characters) while they fit in kPackageIndexMaxChars, then the remaining names
// only, then a count of what did not fit; ends with how to ask for one symbol.
std::string package_index(std::string_view go_doc_output);

// go doc's stderr without the lines the go command adds about module lookups that GOPROXY=off
// refuses (every line mentioning GOPROXY=off, and "exit status N").
std::string without_go_noise(std::string_view go_doc_stderr);

// The exported names `go doc -short` lines declare: "func Name(", "type Name ", "var Name",
// "const Name", also indented (constructors under their type); with methods_only, the names of
// "func (receiver) Name(" lines instead.
std::vector<std::string> declared_names(std::string_view short_listing, bool methods_only);

// At most five of `names` near `wanted` (case-insensitive edit distance of at most a third of
// its length, at least 2, or one containing the other), nearest first.
std::vector<std::string> near_names(std::string_view wanted, const std::vector<std::string>& names);

}  // namespace kg::sandbox
