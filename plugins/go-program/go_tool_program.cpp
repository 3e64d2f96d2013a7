#include "go_tool_program.hpp"

#include <set>

#include "go_source_scanner.hpp"
#include "snippet_wrapper.hpp"

namespace kg::go_program {

using plugin::InvalidInputError;

NormalizedProgram normalize_for_go_tool(const std::vector<plugin::SourceFile>& files,
                                        const std::vector<std::string>& extra_imports,
                                        plugin::Action action) {
  const std::string verb = action == plugin::Action::test ? "test" : "vet";
  if (!extra_imports.empty()) {
    throw InvalidInputError("extra_imports is for running a program; with action " + verb +
                            " import the packages in your files instead");
  }
  if (files.empty()) throw InvalidInputError("no files were sent; send at least one .go file");
  NormalizedProgram program;
  std::set<std::string> paths;
  bool any_test_file = false;
  bool any_root_go = false;
  std::string snippet_package;  // a root package other than main that declares func run
  for (const auto& file : files) {
    check_source_path(file.path);
    if (!paths.insert(file.path).second) {
      throw InvalidInputError("file path \"" + file.path + "\" is sent more than once; send each file once");
    }
    if (file.path == ".kode-gopher" || file.path.starts_with(".kode-gopher/") ||
        file.path == kWrapperFileName || file.path == kExtraImportsFileName) {
      throw InvalidInputError("file path \"" + file.path + "\" is a name kode-gopher uses; rename it");
    }
    if (file.path == "go.mod") program.user_go_mod = true;
    if (!file.path.ends_with(".go")) continue;
    if (file.path.ends_with("_test.go")) any_test_file = true;
    const bool at_root = file.path.find('/') == std::string::npos;
    any_root_go = any_root_go || at_root;
    const GoFileOutline outline = outline_go_file(file.content);
    for (const auto& import : outline.imports) {
      if (import.path == "C") {
        throw InvalidInputError(
            file.path + ":" + std::to_string(import.line) +
            ": imports \"C\", but cgo is not available: kode-gopher builds with CGO_ENABLED=0 "
            "and sandboxes have no C compiler; use a pure-Go package instead");
      }
    }
    if (at_root && outline.package_name && *outline.package_name != "main") {
      for (const auto& func : outline.functions) {
        if (func.name == "run") snippet_package = *outline.package_name;
      }
    }
  }
  if (!any_root_go) {
    throw InvalidInputError("no .go file at the root: put the package to " + verb +
                            " at paths without '/', e.g. \"main.go\" and \"main_test.go\"");
  }
  if (action == plugin::Action::test && !any_test_file) {
    if (!snippet_package.empty()) {
      throw InvalidInputError(
          "action test runs the tests among the files, and this snippet (package " +
          snippet_package + ", func run) has none: send it as files with a test beside it, e.g. "
          "{\"snippet.go\": <the code>, \"snippet_test.go\": \"package " + snippet_package +
          "\\n\\nimport (\\\"context\\\"; \\\"testing\\\")\\n\\nfunc TestRun(t *testing.T) { "
          "if _, err := run(context.Background()); err != nil { t.Fatal(err) } }\"}, or use "
          "action run to run it");
    }
    throw InvalidInputError(
        "action test runs the tests among the files (files named *_test.go with func "
        "TestXxx(t *testing.T)), and none were sent: add one, e.g. \"main_test.go\", or use "
        "action run to run the program");
  }
  program.mode = plugin::Mode::verbatim;
  program.files = files;
  return program;
}

}  // namespace kg::go_program
