#include <doctest/doctest.h>

#include "runner_command.hpp"

using kg::plugin::SourceFile;
using kg::yaegi::runner_command;

namespace {
const std::string kRunner = "/opt/kg/kode-gopher-yaegi";
}

TEST_CASE("a program on the standard library and its own folders gets the plain runner") {
  const std::vector<SourceFile> files = {
      {"main.go",
       "package main\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n\t\"kode_gopher_user/util\"\n)\n\n"
       "// import \"cloud.google.com/go/storage\" in a comment\n"
       "func main() { fmt.Println(\"cloud.google.com/go/storage\", http.StatusOK, util.X) }\n"},
      {"util/util.go", "package util\n\nconst X = 1\n"},
      {"go.txt", "import \"cloud.google.com/go/storage\"\n"},
      {"main_test.go", "package main\n\nimport \"github.com/stretchr/testify/assert\"\n"},
  };
  CHECK(runner_command(kRunner, files) == "exec /opt/kg/kode-gopher-yaegi --call-on-stdin");
}

TEST_CASE("an import beyond the standard library, in any Go file, gets the cloud runner when it is there") {
  const std::string curated =
      "if [ -x /opt/kg/kode-gopher-yaegi-cloud ]; then GOGC=off exec "
      "/opt/kg/kode-gopher-yaegi-cloud --call-on-stdin; fi; exec /opt/kg/kode-gopher-yaegi "
      "--call-on-stdin";
  CHECK(runner_command(kRunner, {{"main.go", "package main\n\nimport (\n\t\"context\"\n\n"
                                             "\t\"cloud.google.com/go/storage\"\n)\n"}}) == curated);
  CHECK(runner_command(kRunner, {{"main.go", "package main\n\nfunc main() {}\n"},
                                 {"lib/k.go", "package lib\n\nimport metav1 "
                                              "\"k8s.io/apimachinery/pkg/apis/meta/v1\"\n"}}) ==
        curated);
  // extra_imports arrive as a generated file of blank imports.
  CHECK(runner_command(kRunner, {{"kg_extra_imports.go",
                                  "package main\n\nimport _ \"google.golang.org/api/iterator\"\n"}}) ==
        curated);
}
