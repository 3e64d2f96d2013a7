// run_signature.hpp: a snippet's `func run` checked before any build, from the scanner's
// tokens. It must refuse what is surely wrong and let through everything the compiler could
// accept (named results, interface{}, an alias name, a trailing comma).
#include <doctest/doctest.h>

#include "go_source_scanner.hpp"
#include "run_signature.hpp"

using kg::go_program::outline_go_file;
using kg::go_program::run_signature_problem;

namespace {

// The problem with `func run<signature> {}` in a snippet file, or "fine".
std::string problem(const std::string& signature) {
  const auto outline =
      outline_go_file("package demo\n\nimport \"context\"\n\nfunc run" + signature + " {\n\treturn nil, nil\n}\n");
  REQUIRE(outline.functions.size() == 1);
  return run_signature_problem(outline.functions[0].signature_tokens).value_or("fine");
}

}  // namespace

TEST_CASE("the scanner keeps a function's signature, as tokens and as text") {
  const auto outline = outline_go_file(
      "package demo\nfunc run(ctx   context.Context)\n\t(any, error) {\n\tx := map[string]int{}\n"
      "\t_ = x\n\treturn nil, nil\n}\nfunc helper() interface{ M() } { return nil }\n"
      "func decl(int) int\nvar v = 1\n");
  REQUIRE(outline.functions.size() == 3);
  CHECK(outline.functions[0].signature_text == "(ctx context.Context) (any, error)");
  CHECK(outline.functions[0].signature_tokens ==
        std::vector<std::string>{"(", "ctx", "context", ".", "Context", ")", "(", "any", ",",
                                 "error", ")"});
  // `interface{` and `struct{` in a result are part of the type, not the body.
  CHECK(outline.functions[1].signature_text == "() interface{ M() }");
  // A declaration without a body ends at the next top-level keyword.
  CHECK(outline.functions[2].signature_text == "(int) int");
}

TEST_CASE("signatures the contract admits, or may admit, pass") {
  CHECK(problem("(ctx context.Context) (any, error)") == "fine");
  CHECK(problem("(_ context.Context) (any, error)") == "fine");
  CHECK(problem("(context.Context) (any, error)") == "fine");
  CHECK(problem("(ctx context.Context,) (interface{}, error)") == "fine");
  CHECK(problem("(ctx context.Context) (interface {}, error)") == "fine");
  CHECK(problem("(ctx context.Context) (result any, err error)") == "fine");
  CHECK(problem("(c stdcontext.Context) (any, error)") == "fine");  // an import alias
  CHECK(problem("(ctx Context) (any, error)") == "fine");           // a dot import
  CHECK(problem("(ctx context.Context) (Result, error)") == "fine");  // maybe `type Result = any`
  CHECK(problem("(ctx context.Context) (out.Value, error)") == "fine");
}

TEST_CASE("signatures surely wrong are named") {
  CHECK(problem("()") == "it takes 0 parameters, not one context.Context");
  CHECK(problem("() (any, error)") == "it takes 0 parameters, not one context.Context");
  CHECK(problem("(ctx context.Context, n int) (any, error)") ==
        "it takes 2 parameters, not one context.Context");
  CHECK(problem("(a, b context.Context) (any, error)") ==
        "it takes 2 parameters, not one context.Context");
  CHECK(problem("(ctx *gin.Context) (any, error)") == "its parameter is not a context.Context");
  CHECK(problem("(n int) (any, error)") == "its parameter is not a context.Context");
  CHECK(problem("(ctx context.Background) (any, error)") == "its parameter is not a context.Context");
  CHECK(problem("(ctx context.Context)") == "it returns nothing");
  CHECK(problem("(ctx context.Context) error") ==
        "it returns one value, not two (a value and an error)");
  CHECK(problem("(ctx context.Context) []string") ==
        "it returns one value, not two (a value and an error)");
  CHECK(problem("(ctx context.Context) (any)") == "it returns 1 value, not two (a value and an error)");
  CHECK(problem("(ctx context.Context) (a, b any, err error)") ==
        "it returns 3 values, not two (a value and an error)");
  CHECK(problem("(ctx context.Context) ([]string, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (map[string]int, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (chan int, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (struct{ N int }, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (interface{ M() }, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (func(), error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (*bigquery.Table, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (string, error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (rows []Row, err error)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (error, any)") == "its first result is not any");
  CHECK(problem("(ctx context.Context) (any, string)") == "its second result is not error");
  CHECK(problem("(ctx context.Context) (any, any)") == "its second result is not error");
  CHECK(problem("[T any](ctx context.Context) (T, error)") == "it has type parameters");
}
