// End to end: the real HTTP server on a Unix socket, driven with kg::net::UnixHttpClient.
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "in_memory_tar.hpp"
#include "process_watch.hpp"
#include "running_sandbox_server.hpp"

using kg::net::HttpRequestOptions;
using kg::net::HttpResponse;
using kg::sandbox::testing::detail_of;
using kg::sandbox::testing::InMemoryTar;
using kg::sandbox::testing::parse_json;
using kg::sandbox::testing::file_contents;
using kg::sandbox::testing::RunningSandboxServer;
using kg::sandbox::testing::upload_tar;

namespace {

std::string multipart_body(const std::string& field, const std::string& filename,
                           const std::string& content) {
  return "--kgboundary\r\nContent-Disposition: form-data; name=\"" + field + "\"; filename=\"" +
         filename + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content +
         "\r\n--kgboundary--\r\n";
}

HttpResponse upload(const RunningSandboxServer& sandbox, const std::string& body) {
  HttpRequestOptions options;
  options.content_type = "multipart/form-data; boundary=kgboundary";
  return sandbox.client().request("POST", "/upload", body, options);
}

std::string header(const HttpResponse& response, const std::string& name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return {};
}

}  // namespace

TEST_CASE("GET / answers the readiness probe and every request is logged") {
  RunningSandboxServer sandbox;
  const HttpResponse response = sandbox.client().get("/");
  CHECK(response.status == 200);
  CHECK(response.content_type == "application/json");
  CHECK(response.body == R"({"status":"ok","server":"kode-gopher-sandbox","version":"0.1.0","workdir":")" +
                             sandbox.workdir().string() + "\"}");
  const auto lines = sandbox.logger().lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].starts_with("GET / 200 "));
}

TEST_CASE("POST /execute runs the command and reports its outcome") {
  RunningSandboxServer sandbox;
  const HttpResponse response = sandbox.post_json(
      "/execute", R"({"command": "echo \"$GREETING\"; pwd; echo oops >&2; exit 3", "env": {"GREETING": "hello"}})");
  REQUIRE(response.status == 200);
  const auto result = parse_json(response.body);
  CHECK(std::string(result["stdout"].GetString()) == "hello\n" + sandbox.workdir().string() + "\n");
  CHECK(std::string(result["stderr"].GetString()) == "oops\n");
  CHECK(result["exit_code"].GetInt() == 3);
  CHECK(result["signal"].GetInt() == 0);
  CHECK(result["timed_out"].GetBool() == false);
  CHECK(result["stdout_truncated"].GetBool() == false);
  CHECK(result["stderr_truncated"].GetBool() == false);
  CHECK(result["duration_ms"].IsUint64());
}

TEST_CASE("POST /execute applies timeout_ms, the stream cap and reports signals") {
  RunningSandboxServer sandbox;
  SUBCASE("timeout") {
    const auto result = parse_json(
        sandbox.post_json("/execute", R"({"command": "sleep 30", "timeout_ms": 300})").body);
    CHECK(result["timed_out"].GetBool());
    CHECK(result["exit_code"].GetInt() == 137);
    CHECK(result["signal"].GetInt() == 9);
  }
  SUBCASE("a larger output_limit_bytes is lowered to the server's cap (1024)") {
    const auto result = parse_json(sandbox
                                       .post_json("/execute", R"({"command": "head -c 5000 /dev/zero | tr '\\0' a", "output_limit_bytes": 100000})")
                                       .body);
    CHECK(std::string(result["stdout"].GetString()) == std::string(768, 'a') +
                                                         "\n... [3976 bytes discarded] ...\n" +
                                                         std::string(256, 'a'));
    CHECK(result["stdout_truncated"].GetBool());
    CHECK(result["stdout_discarded_bytes"].GetUint64() == 3976);
  }
  SUBCASE("output_limit_bytes below the cap") {
    const auto result = parse_json(
        sandbox.post_json("/execute", R"({"command": "printf abcdef", "output_limit_bytes": 3})")
            .body);
    CHECK(std::string(result["stdout"].GetString()) == "abc\n... [3 bytes discarded] ...\n");
  }
  SUBCASE("invalid UTF-8 output becomes U+FFFD") {
    const auto result =
        parse_json(sandbox.post_json("/execute", R"({"command": "printf 'a\\377b'"})").body);
    CHECK(std::string(result["stdout"].GetString()) == "a\xEF\xBF\xBD" "b");
  }
}

TEST_CASE("POST /execute refuses bad requests with a message") {
  RunningSandboxServer sandbox;
  const auto refused = [&](const std::string& body, int status, const std::string& detail) {
    const HttpResponse response = sandbox.post_json("/execute", body);
    CHECK(response.status == status);
    CHECK(detail_of(response) == detail);
  };
  refused(R"({"command": "ls",)", 400,
          "The /execute body is not valid JSON: Missing a name for object member. "
          "(line 1, column 18)");
  refused("[1]", 400, R"(The /execute body must be a JSON object such as {"command": "ls"})");
  refused(R"({"command": ""})", 400,
          R"("command" is required and must be a non-empty string, such as "ls -la")");
  refused(R"({"cmd": "ls"})", 400,
          R"("command" is required and must be a non-empty string, such as "ls -la")");
  refused(R"({"command": "ls", "timeout_ms": 0})", 400,
          R"("timeout_ms" must be an integer from 1 to 3600000)");
  refused(R"({"command": "ls", "timeout_ms": 3600001})", 400,
          R"("timeout_ms" must be an integer from 1 to 3600000)");
  refused(R"({"command": "ls", "env": ["A=1"]})", 400,
          R"("env" must be an object of strings, such as {"GOFLAGS": "-mod=mod"})");
  refused(R"({"command": "ls", "env": {"A": 1}})", 400, R"("env"."A" must be a string)");
  refused(R"({"command": "ls", "env": {"A=B": "1"}})", 400,
          R"("env" has the invalid variable name "A=B": names must be non-empty and hold no '=' or NUL)");
  refused(R"({"command": "ls", "output_limit_bytes": -1})", 400,
          R"("output_limit_bytes" must be an integer from 0 to 9223372036854775807)");
  refused(R"({"command": "ls", "credentials": {"access_token": "x"}})", 400,
          "\"credentials\": \"expiry\" is required (RFC 3339, e.g. 2026-12-03T09:00:00Z)");
  refused(R"({"command": ")" + std::string(5000, 'x') + "\"}", 413,
          "The /execute body is larger than the limit of 4096 bytes: send less");
}

TEST_CASE("POST /execute stops the command when the client hangs up") {
  RunningSandboxServer sandbox;
  const std::string body = R"({"command": "sleep 60 & echo $! > bg.pid; wait"})";
  {
    Poco::Net::StreamSocket client;
    client.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL,
                                            (sandbox.scratch() / "sandbox.sock").string()));
    const std::string request = "POST /execute HTTP/1.1\r\nHost: localhost\r\n"
                                "Content-Type: application/json\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    REQUIRE(client.sendBytes(request.data(), static_cast<int>(request.size())) ==
            static_cast<int>(request.size()));
    // Hang up once the command runs.
    for (int tries = 0; tries < 500 && !std::filesystem::exists(sandbox.workdir() / "bg.pid");
         ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const pid_t background = kg::sandbox::testing::read_pid_file(sandbox.workdir() / "bg.pid");
  REQUIRE(background > 0);
  CHECK(kg::sandbox::testing::wait_until_gone(background));
  // The lock is free again: the next command runs.
  const auto result =
      parse_json(sandbox.post_json("/execute", R"({"command": "echo after"})").body);
  CHECK(std::string(result["stdout"].GetString()) == "after\n");
}

TEST_CASE("POST /execute runs one command at a time") {
  RunningSandboxServer sandbox;
  // Each command holds a mkdir lock for a while; overlapping commands would find it taken.
  const std::string body =
      R"({"command": "mkdir lock || exit 9; sleep 0.3; rmdir lock"})";
  kg::net::HttpResponse first, second;
  std::thread other([&] { first = sandbox.post_json("/execute", body); });
  second = sandbox.post_json("/execute", body);
  other.join();
  CHECK(parse_json(first.body)["exit_code"].GetInt() == 0);
  CHECK(parse_json(second.body)["exit_code"].GetInt() == 0);
}

TEST_CASE("other routes are served while a command runs") {
  RunningSandboxServer sandbox;
  kg::net::HttpResponse execute;
  std::thread running([&] {
    execute = sandbox.post_json(
        "/execute",
        R"({"command": "touch started; while [ ! -e release ]; do sleep 0.02; done; echo released", "timeout_ms": 20000})");
  });
  for (int tries = 0; tries < 500 && !std::filesystem::exists(sandbox.workdir() / "started");
       ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const HttpResponse exists = sandbox.client().get("/exists/started");
  std::ofstream(sandbox.workdir() / "release") << "";
  running.join();
  CHECK(exists.body == R"({"path":"started","exists":true})");
  const auto result = parse_json(execute.body);
  CHECK(std::string(result["stdout"].GetString()) == "released\n");
  CHECK_FALSE(result["timed_out"].GetBool());
}

TEST_CASE("POST /upload stores one file under its plain name") {
  RunningSandboxServer sandbox;
  const HttpResponse response = upload(sandbox, multipart_body("file", "hello.txt", "hello"));
  CHECK(response.status == 200);
  CHECK(response.body == R"({"filename":"hello.txt","size":5})");
  CHECK(file_contents(sandbox.workdir() / "hello.txt") == "hello");

  SUBCASE("a symlink of the same name is replaced, not written through") {
    std::filesystem::create_symlink(sandbox.scratch() / "outside.txt", sandbox.workdir() / "x.txt");
    CHECK(upload(sandbox, multipart_body("file", "x.txt", "inside")).status == 200);
    CHECK_FALSE(std::filesystem::exists(sandbox.scratch() / "outside.txt"));
    CHECK_FALSE(std::filesystem::is_symlink(sandbox.workdir() / "x.txt"));
  }
  SUBCASE("names with a path are refused") {
    const HttpResponse refused = upload(sandbox, multipart_body("file", "../x", "boom"));
    CHECK(refused.status == 400);
    CHECK(detail_of(refused) ==
          "The uploaded file name \"../x\" is not a plain file name: use /upload-tar for paths");
    CHECK_FALSE(std::filesystem::exists(sandbox.scratch() / "x"));
  }
  SUBCASE("a form without a file part") {
    const HttpResponse refused = upload(sandbox, multipart_body("other", "a.txt", "x"));
    CHECK(refused.status == 400);
    CHECK(detail_of(refused) == "The form has no file part named \"file\"");
  }
  SUBCASE("a body that is not multipart") {
    const HttpResponse refused = sandbox.client().request("POST", "/upload", "x", {});
    CHECK(refused.status == 400);
    CHECK(detail_of(refused) == "/upload needs a multipart/form-data body with a file part named "
                                "\"file\" (curl -F file=@main.go)");
  }
  SUBCASE("a file over the upload limit") {
    const HttpResponse refused =
        upload(sandbox, multipart_body("file", "big.bin", std::string(64 * 1024 + 1, 'x')));
    CHECK(refused.status == 413);
    CHECK(detail_of(refused) ==
          "The uploaded file \"big.bin\" is larger than the limit of 65536 bytes");
    CHECK_FALSE(std::filesystem::exists(sandbox.workdir() / "big.bin"));
    for (const auto& entry : std::filesystem::directory_iterator(sandbox.workdir())) {
      CHECK_MESSAGE(!entry.path().filename().string().starts_with(".kg-upload-"),
                    "temporary file left: " << entry.path());
    }
  }
}

TEST_CASE("POST /upload-tar extracts a tree, optionally under dir") {
  RunningSandboxServer sandbox;
  const std::string tar =
      InMemoryTar().directory("pkg/").file("pkg/lib.go", "package pkg\n").file("main.go", "package main\n").finish();
  const HttpResponse response = upload_tar(sandbox, "/upload-tar", tar);
  CHECK(response.status == 200);
  CHECK(response.body == R"({"files":2,"bytes":25})");
  CHECK(file_contents(sandbox.workdir() / "pkg/lib.go") == "package pkg\n");

  CHECK(upload_tar(sandbox, "/upload-tar?dir=nested%2Fplace", tar).status == 200);
  CHECK(file_contents(sandbox.workdir() / "nested/place/main.go") == "package main\n");

  const HttpResponse escape = upload_tar(sandbox, "/upload-tar?dir=..%2Fout", tar);
  CHECK(escape.status == 403);
  CHECK(detail_of(escape) == "Path \"../out\" resolves to " + (sandbox.scratch() / "out").string() +
                                 ", outside the workdir " + sandbox.workdir().string() +
                                 ": use a path inside the workdir");

  const HttpResponse hostile = upload_tar(sandbox, "/upload-tar", InMemoryTar().symlink("l", "/").finish());
  CHECK(hostile.status == 400);
  CHECK(detail_of(hostile) ==
        "Tar entry \"l\" is a symbolic link: only regular files and directories can be uploaded");

  const HttpResponse too_big = upload_tar(
      sandbox, "/upload-tar", InMemoryTar().file("big", std::string(64 * 1024 + 1, 'x')).finish());
  CHECK(too_big.status == 413);
  CHECK(detail_of(too_big) == "The tar's files exceed the upload limit of 65536 bytes (at entry "
                              "\"big\"): upload fewer or smaller files");
}

TEST_CASE("GET /download, /list and /exists confine paths to the workdir") {
  RunningSandboxServer sandbox;
  std::filesystem::create_directories(sandbox.workdir() / "src");
  std::ofstream(sandbox.workdir() / "src" / "main.go") << "package main\n";
  std::ofstream(sandbox.scratch() / "secret") << "secret";
  const std::string outside = ", outside the workdir " + sandbox.workdir().string() +
                              ": use a path inside the workdir";

  SUBCASE("download") {
    const HttpResponse file = sandbox.client().get("/download/src%2Fmain.go");
    CHECK(file.status == 200);
    CHECK(file.content_type == "application/octet-stream");
    CHECK(file.body == "package main\n");
    CHECK(sandbox.client().get("/download/src/main.go").body == "package main\n");

    const HttpResponse missing = sandbox.client().get("/download/nope.go");
    CHECK(missing.status == 404);
    CHECK(detail_of(missing) == "Nothing at \"nope.go\" in the workdir");

    const HttpResponse directory = sandbox.client().get("/download/src");
    CHECK(directory.status == 400);
    CHECK(detail_of(directory) == "\"src\" is a directory: use /list/ to see what it holds");

    const HttpResponse escape = sandbox.client().get("/download/..%2Fsecret");
    CHECK(escape.status == 403);
    CHECK(detail_of(escape) ==
          "Path \"../secret\" resolves to " + (sandbox.scratch() / "secret").string() + outside);

    const HttpResponse bad_escape = sandbox.client().get("/download/a%zz");
    CHECK(bad_escape.status == 400);
    CHECK(detail_of(bad_escape) ==
          "Invalid percent escape \"%zz\" at position 1 of path \"a%zz\": encode '%' as %25");
  }
  SUBCASE("list") {
    for (const std::string target : {"/list/", "/list"}) {
      const HttpResponse listing = sandbox.client().get(target);
      CHECK(listing.status == 200);
      const auto entries = parse_json(listing.body);
      REQUIRE(entries.IsArray());
      REQUIRE(entries.Size() == 1);
      CHECK(std::string(entries[0]["name"].GetString()) == "src");
      CHECK(std::string(entries[0]["type"].GetString()) == "directory");
      CHECK(entries[0]["mod_time"].IsDouble());
    }
    const auto nested = parse_json(sandbox.client().get("/list/src").body);
    REQUIRE(nested.Size() == 1);
    CHECK(std::string(nested[0]["name"].GetString()) == "main.go");
    CHECK(std::string(nested[0]["type"].GetString()) == "file");
    CHECK(nested[0]["size"].GetUint64() == 13);

    CHECK(sandbox.client().get("/list/missing").status == 404);
    const HttpResponse file = sandbox.client().get("/list/src%2Fmain.go");
    CHECK(file.status == 400);
    CHECK(detail_of(file) == "\"src/main.go\" is a file, not a directory: use /download/");
    CHECK(sandbox.client().get("/list/..").status == 403);
  }
  SUBCASE("exists") {
    CHECK(sandbox.client().get("/exists/src%2Fmain.go").body ==
          R"({"path":"src/main.go","exists":true})");
    CHECK(sandbox.client().get("/exists/src%2Fother.go").body ==
          R"({"path":"src/other.go","exists":false})");
    const HttpResponse escape = sandbox.client().get("/exists/%2Fetc%2Fpasswd");
    CHECK(escape.status == 403);
    CHECK(detail_of(escape) == "Path \"/etc/passwd\" resolves to /etc/passwd" + outside);
    std::filesystem::create_symlink(sandbox.scratch(), sandbox.workdir() / "up");
    CHECK(sandbox.client().get("/exists/up%2Fsecret").status == 403);
  }
}

TEST_CASE("POST /reset empties the workdir but keeps it") {
  RunningSandboxServer sandbox;
  std::filesystem::create_directories(sandbox.workdir() / "a" / "b");
  std::ofstream(sandbox.workdir() / "a" / "b" / "f") << "x";
  std::ofstream(sandbox.scratch() / "keep") << "x";
  std::filesystem::create_symlink(sandbox.scratch(), sandbox.workdir() / "link");
  std::filesystem::permissions(sandbox.workdir() / "a" / "b", std::filesystem::perms::owner_read |
                                                                  std::filesystem::perms::owner_exec);
  const HttpResponse response = sandbox.client().request("POST", "/reset", "", {});
  CHECK(response.status == 200);
  CHECK(response.body == R"({"removed":4})");
  CHECK(std::filesystem::is_directory(sandbox.workdir()));
  CHECK(std::filesystem::is_empty(sandbox.workdir()));
  CHECK(std::filesystem::exists(sandbox.scratch() / "keep"));
}

TEST_CASE("unknown routes get 404 and wrong methods 405, both as JSON") {
  RunningSandboxServer sandbox;
  const HttpResponse unknown = sandbox.client().get("/nope");
  CHECK(unknown.status == 404);
  CHECK(detail_of(unknown) ==
        "No route for GET /nope: the routes are GET /, POST /execute, POST /upload, POST "
        "/upload-tar, POST /reset, GET /download/<path>, GET /list/<path>, GET /exists/<path>, "
                              "GET /download-tar/<path>");
  const HttpResponse wrong_method = sandbox.client().get("/execute");
  CHECK(wrong_method.status == 405);
  CHECK(header(wrong_method, "Allow") == "POST");
  CHECK(detail_of(wrong_method) == "GET is not allowed on /execute: use POST");
  CHECK(sandbox.client().request("DELETE", "/download/x", "", {}).status == 405);
}
