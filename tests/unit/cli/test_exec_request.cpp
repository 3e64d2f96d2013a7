// The ExecuteRequest `kode-gopher exec` sends, and where it sends it.
#include <doctest/doctest.h>

#include "commands.hpp"

using kg::cli::ExecOptions;
using kg::cli::execute_request_body;
using kg::cli::execute_target;

TEST_CASE("a one-shot request carries the files and client cli") {
  ExecOptions options;
  CHECK(execute_request_body({{"main.go", "package main\n"}, {"lib/a.go", "\"quoted\"\t"}},
                             options) ==
        R"({"files":{"lib/a.go":"\"quoted\"\t","main.go":"package main\n"},"client":"cli"})");
  CHECK(execute_target(options) == "/v1/execute");
}

TEST_CASE("runtime and timeout are sent when given; a session call names no client") {
  ExecOptions options;
  options.runtime = "compiled-go";
  options.timeout_ms = 1500;
  options.session_id = "s-4f1c/x";
  CHECK(execute_request_body({{"main.go", std::string("a\0b", 3)}}, options) ==
        R"({"files":{"main.go":"a\u0000b"},"runtime":"compiled-go","timeout_ms":1500})");
  CHECK(execute_target(options) == "/v1/sessions/s-4f1c%2Fx/execute");
}
