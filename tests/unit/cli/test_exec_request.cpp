// The ExecuteRequest `kode-gopher exec` sends, and where it sends it.
#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("--read-only, --project and --bucket become the request's api_policy") {
  ExecOptions options;
  options.session_id = "s-1";
  options.read_only = true;
  options.projects = {"proj-a", "proj-b"};
  options.buckets = {"my-bucket"};
  CHECK(execute_request_body({{"main.go", "x"}}, options) ==
        R"({"files":{"main.go":"x"},"api_policy":{"read_only":true,"projects":["proj-a","proj-b"],"buckets":["my-bucket"]}})");
  options.read_only = false;
  options.projects.clear();
  CHECK(execute_request_body({{"main.go", "x"}}, options) ==
        R"({"files":{"main.go":"x"},"api_policy":{"buckets":["my-bucket"]}})");
}

namespace {

// Parses `kode-gopher exec ...` as the CLI does; returns CLI11's message, "" when accepted.
std::string exec_parse_problem(std::vector<std::string> args) {
  CLI::App app;
  kg::cli::GlobalOptions globals;
  kg::cli::CommandAction action;
  kg::cli::add_exec_command(app, globals, action);
  args.insert(args.begin(), "exec");
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return action ? "" : "no action";
}

}  // namespace

TEST_CASE("exec's policy flags take repeated names and refuse what is not a project or bucket") {
  CHECK(exec_parse_problem({"--read-only", "--project", "proj-a", "--project", "123456789",
                            "--bucket", "logs.example.com", "main.go"}) == "");
  CHECK(exec_parse_problem({"--project", "My_Project", "main.go"}).find(
            "\"My_Project\" is not a project ID") != std::string::npos);
  CHECK(exec_parse_problem({"--bucket", "x", "main.go"}).find("\"x\" is not a bucket name") !=
        std::string::npos);
}
