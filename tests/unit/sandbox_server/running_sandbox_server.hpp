// A real SandboxServer on a Unix socket in a scratch directory, served in-process, with a client
// for it and the log lines it wrote. Tests only.
#pragma once

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <mutex>
#include <string>
#include <vector>

#include "listen_address.hpp"
#include "sandbox_server.hpp"
#include "scratch_directory.hpp"
#include "unix_http_client.hpp"
#include "../../support/test_loggers.hpp"
#include "../../support/test_json.hpp"

namespace kg::sandbox::testing {

// Small limits, so that the tests can cross them cheaply.
inline SandboxServerOptions small_limits(const std::filesystem::path& workdir) {
  SandboxServerOptions options;
  options.workdir = workdir;
  options.max_json_bytes = 4096;
  options.max_upload_bytes = 64 * 1024;
  options.stream_cap_bytes = 1024;
  return options;
}

class RunningSandboxServer {
 public:
  RunningSandboxServer()
      : workdir_(make_workdir(scratch_.path())),
        socket_path_((scratch_.path() / "sandbox.sock").string()),
        server_(listen_on(parse_listen_address("unix:" + socket_path_)), small_limits(workdir_),
                logger_),
        client_(socket_path_) {
    server_.start();
  }

  const std::filesystem::path& workdir() const { return workdir_; }
  const std::filesystem::path& scratch() const { return scratch_.path(); }
  const std::string& socket_path() const { return socket_path_; }
  const net::UnixHttpClient& client() const { return client_; }
  const kg::test::RecordingLogger& logger() const { return logger_; }

  net::HttpResponse post_json(const std::string& target, const std::string& body) const {
    return client_.request("POST", target, body, {});
  }

 private:
  static std::filesystem::path make_workdir(const std::filesystem::path& scratch) {
    std::filesystem::create_directory(scratch / "app");
    return scratch / "app";
  }

  ScratchDirectory scratch_;
  std::filesystem::path workdir_;
  std::string socket_path_;
  kg::test::RecordingLogger logger_;
  SandboxServer server_;
  net::UnixHttpClient client_;
};

inline rapidjson::Document parse_json(const std::string& text) {
  kg::json::ReadJson document_read = kg::test::read_test_json(text);
  rapidjson::Document& document = document_read.document;
  REQUIRE_MESSAGE(!document_read.refused, "not JSON: " << text);
  return std::move(document);
}

// The "detail" of an error answer.
inline std::string detail_of(const net::HttpResponse& response) {
  const rapidjson::Document document = parse_json(response.body);
  REQUIRE_MESSAGE(document.IsObject(), response.body);
  REQUIRE_MESSAGE(document.HasMember("detail"), response.body);
  return document["detail"].GetString();
}

// POST of a tar body to `target` (/upload-tar with its query).
inline net::HttpResponse upload_tar(const RunningSandboxServer& sandbox, const std::string& target,
                                    const std::string& tar) {
  net::HttpRequestOptions options;
  options.content_type = "application/x-tar";
  return sandbox.client().request("POST", target, tar, options);
}

}  // namespace kg::sandbox::testing
