// The daemon's side of the sandbox runtime API (CONTRACTS.md §1 plus our /reset, /upload-tar
// and /execute extensions): the SandboxHandle a runtime plugin drives. One per sandbox; used by
// one call thread at a time (the session serializes calls).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "sandbox_handle.hpp"
#include "unix_http_client.hpp"

namespace kg::sandbox {

class SandboxClient final : public plugin::SandboxHandle {
 public:
  explicit SandboxClient(std::string socket_path) : http_(std::move(socket_path)) {}

  // True when GET / answers {"status":"ok"}; never throws.
  bool healthy(std::chrono::milliseconds timeout) const noexcept;

  void reset_workdir() override;
  void upload_files(std::span<const plugin::SourceFile> files) override;
  plugin::CommandOutcome run_command(const plugin::CommandSpec& spec) override;
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) override;

 private:
  net::HttpResponse call(std::string_view method, std::string_view target, std::string_view body,
                         const net::HttpRequestOptions& options, std::string_view what) const;

  net::UnixHttpClient http_;
};

}  // namespace kg::sandbox
