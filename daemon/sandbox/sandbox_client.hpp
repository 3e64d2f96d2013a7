// The daemon's side of the sandbox runtime API (docs/contracts.md §1 plus our /upload-tar, with
// replace, and /execute, with read_file, extensions), behind the SandboxHandle a runtime plugin
// drives. Every message is written and read by its codec in lib/wire/sandbox_api, the one the
// sandbox server uses too. One per sandbox; used by one call thread at a time (the session
// serializes calls). Throws plugin::SandboxError.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "call_handle.hpp"
#include "sandbox_handle.hpp"
#include "http_client.hpp"
#include "output_sink.hpp"
#include "sandbox_handle.hpp"

namespace kg::sandbox {

class SandboxClient {
 public:
  // Talks to the sandbox's server through `http` (a Unix socket for a local sandbox, the
  // agent-sandbox router for a Kubernetes one).
  explicit SandboxClient(std::unique_ptr<net::HttpClient> http) : http_(std::move(http)) {}

  // True when GET / answers {"status":"ok"}; never throws.
  bool healthy(std::chrono::milliseconds timeout) const noexcept;

  // Empties /app and extracts the files there in the same request (POST /upload-tar?replace=1).
  void replace_workdir(std::span<const plugin::SourceFile> files);
  void upload_files(std::span<const plugin::SourceFile> files);
  // canceller (optional) lets another thread stop the command: see net::RequestCanceller.
  // spec.read_file_after is answered in the same request (our /execute "read_file"
  // extension), or with a GET /download/ after it when the sandbox lacks the extension.
  // With spec.stream_output and an output sink, the command's output goes to `output` as the
  // sandbox streams it (our /execute "stream" extension); a sandbox without it answers at the
  // end, and nothing is streamed.
  plugin::CommandOutcome run_command(const plugin::CommandSpec& spec,
                                     net::RequestCanceller* canceller = nullptr,
                                     OutputSink* output = nullptr);
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes);
  // GET /download-tar/<path> (CallHandle::folder_tar); nullopt on 404.
  std::optional<std::string> folder_tar(std::string_view path, const FolderTarBounds& bounds);

 private:
  void upload_tar(std::span<const plugin::SourceFile> files, bool replace);
  plugin::FileAfterCommand read_file_separately(const plugin::FileReadRequest& request);
  net::HttpResponse call(std::string_view method, std::string_view target, std::string_view body,
                         const net::HttpRequestOptions& options, std::string_view what) const;

  std::unique_ptr<net::HttpClient> http_;
};

}  // namespace kg::sandbox
