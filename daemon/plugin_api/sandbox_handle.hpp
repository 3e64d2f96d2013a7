// The host-provided view of one sandbox, as a runtime plugin drives it. The daemon implements it
// over the sandbox runtime API (docs/contracts.md §1); the plugin never sees HTTP.
//
// Called from the thread running the call; a sandbox runs one call at a time, so implementations
// need not be re-entrant. Every method throws SandboxError when the sandbox cannot be reached or
// answers with an error; a command that fails or is killed is an outcome, not an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::plugin {

class SandboxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SourceFile {
  std::string path;  // relative to /app, already validated
  std::string content;
};

// Resource limits of one command; 0 means the sandbox's default. Memory and pids bound the whole
// sandbox while the command runs (cgroup); the rest bound each process of the command (rlimits).
struct ResourceLimits {
  std::uint64_t memory_bytes = 0;
  std::uint32_t pids = 0;
  std::uint32_t cpu_seconds = 0;
  std::uint64_t file_size_bytes = 0;
  std::uint32_t open_files = 0;
};

// A file of /app read the moment a command ends, in the same round trip as the command.
struct FileReadRequest {
  std::string path;  // relative to /app
  std::uint64_t max_bytes = 0;
};

struct FileAfterCommand {
  bool exists = false;
  std::string content;  // when exists and error is empty
  std::string error;    // why it was not read (larger than max_bytes, not a regular file, ...)
};

// A short-lived Google access token a command gets, served to it by the sandbox's metadata
// emulator for the life of that command only (docs/contracts.md §1 "credentials", §2). Only ever an
// access token: never a refresh token, a private key or a credentials file.
struct CommandCredentials {
  std::string access_token;
  std::string expiry_rfc3339;  // UTC, "2026-12-03T09:00:00Z"; the sandbox refuses an expired one
  std::string email;           // empty: not sent (likewise below)
  std::string project;
  std::string quota_project;
};

struct CommandSpec {
  std::string command;  // run as `sh -c <command>` in /app
  std::vector<std::pair<std::string, std::string>> env;
  std::uint32_t timeout_ms = 60'000;
  std::uint64_t output_limit_bytes = 4 * 1024 * 1024;  // per stream
  ResourceLimits resources;
  std::optional<FileReadRequest> read_file_after;
  // A build whose output may go to the binary cache: the sandbox first kills every process and
  // empties every writable folder but /app (home, /tmp, /dev/shm), and hides the session's
  // persist folder, so the build reads only what this call uploaded and the read-only base.
  // The binary cache (go_host_services.hpp) keeps only what such a command built.
  bool clean_state = false;
  // Set only on the command that runs the user's program of a credentialed call, never on a
  // build: the sandbox serves this token to that command alone.
  std::optional<CommandCredentials> credentials;
  // Set for a command that takes its call on stdin (the yaegi runner): the sandbox may start
  // it ahead of the call, with none of this call's environment, and hands it `env` (with the
  // sandbox's own variables) and these arguments on its stdin when the call comes
  // (docs/sandbox-api.md, "Prestarted commands"). Otherwise: an ordinary command.
  std::optional<std::vector<std::string>> prestart_arguments;
  // Set only on the command that runs the user's program, never on a build: its output lines
  // are streamed, as they are printed, to whoever watches the call (docs/daemon-api.md,
  // "Progress"); the outcome is the same either way. Lines that start with
  // stream_skip_prefix (non-empty) are left out of the stream: the runtime's own messages.
  bool stream_output = false;
  std::string stream_skip_prefix;
};

struct CommandOutcome {
  int exit_code = 0;  // 128+signal when killed by a signal
  int signal = 0;     // 0 unless killed by a signal
  bool timed_out = false;
  bool oom_killed = false;          // the kernel's OOM killer ended a process of the command
  bool cpu_limit_exceeded = false;  // the command used up resources.cpu_seconds
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  // Bytes printed past output_limit_bytes and discarded from the middle (the text keeps the
  // head and the tail, with a "... [N bytes discarded] ..." marker between).
  std::uint64_t stdout_discarded_bytes = 0;
  std::uint64_t stderr_discarded_bytes = 0;
  std::string stdout_text;
  std::string stderr_text;
  std::uint64_t duration_ms = 0;
  std::optional<FileAfterCommand> file_after;  // set exactly when the spec's read_file_after is
};

class SandboxHandle {
 public:
  virtual ~SandboxHandle() = default;
  // Empties /app and writes the files there, in one round trip (a tar the sandbox extracts).
  virtual void replace_workdir(std::span<const SourceFile> files) = 0;
  // Writes the files under /app beside what is there, in one round trip.
  virtual void upload_files(std::span<const SourceFile> files) = 0;
  virtual CommandOutcome run_command(const CommandSpec& spec) = 0;
  // Contents of a file under /app, nullopt when it does not exist; throws SandboxError when it
  // is larger than max_bytes.
  virtual std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) = 0;
};

}  // namespace kg::plugin
