// A `kode-gopher serve` child process for protocol tests: lines go to its stdin, lines come back
// from its stdout (each must be a JSON object: stdout carries nothing else), its stderr goes to
// a log file shown when a check fails.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace kg::test {

class ServeProcess {
 public:
  // Starts `$KG_CLI --config <config_path> serve --log-level debug`.
  explicit ServeProcess(const std::string& config_path);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  void send(const std::string& line);  // appends '\n'
  void send_raw(const std::string& bytes);
  // The next stdout line (without '\n'); throws std::runtime_error when none comes within
  // `wait_seconds` (a hung server, not a timing check) or stdout ends.
  std::string read_line(int wait_seconds = 60);
  // read_line, parsed; fails the test when the line is not a JSON object.
  rapidjson::Document read_message(int wait_seconds = 60);
  // Closes stdin and returns the exit status (waits up to `wait_seconds`, then kills).
  int close_and_wait(int wait_seconds = 60);
  // Sends `signal` with stdin still open and returns the exit status.
  int signal_and_wait(int signal, int wait_seconds = 60);
  // Whatever stdout still held after the process exited (must be empty).
  std::string remaining_output();

  std::string stderr_text() const;

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string dir_;  // holds stderr.log; removed with the process
  std::string stderr_path_;
  std::string buffered_;

  int wait_for_exit(int wait_seconds);
};

// A config file whose daemon socket nobody listens on (protocol tests never reach a daemon).
std::string write_unreachable_daemon_config(const std::string& dir);

// `document` as compact JSON.
std::string compact(const rapidjson::Value& value);

}  // namespace kg::test
