#include "serve_process.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <csignal>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

namespace kg::test {

ServeProcess::ServeProcess(const std::string& config_path)
    : dir_(unique_temp_dir("kg-mcp-serve-")), stderr_path_(dir_ + "/stderr.log") {
  std::signal(SIGPIPE, SIG_IGN);  // a dead server shows up as EPIPE on send, not as our death
  const std::string cli = required_env("KG_CLI");
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    const int err = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(err, STDERR_FILENO);
    ::execl(cli.c_str(), cli.c_str(), "--config", config_path.c_str(), "serve", "--log-level",
            "debug", nullptr);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
}

ServeProcess::~ServeProcess() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void ServeProcess::send_raw(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::write(stdin_fd_, bytes.data() + sent, bytes.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw std::runtime_error("writing to kode-gopher serve failed: it exited?\n" + stderr_text());
    }
    sent += static_cast<std::size_t>(n);
  }
}

void ServeProcess::send(const std::string& line) { send_raw(line + "\n"); }

std::string ServeProcess::read_line(int wait_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_seconds);
  for (;;) {
    if (const auto newline = buffered_.find('\n'); newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw std::runtime_error("kode-gopher serve wrote no line within " +
                               std::to_string(wait_seconds) + " s\n" + stderr_text());
    }
    pollfd p{stdout_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n == 0) throw std::runtime_error("kode-gopher serve closed stdout\n" + stderr_text());
    if (n > 0) buffered_.append(chunk, static_cast<std::size_t>(n));
  }
}

rapidjson::Document ServeProcess::read_message(int wait_seconds) {
  const std::string line = read_line(wait_seconds);
  kg::json::ReadJson doc_read = kg::test::read_test_json(line);
  rapidjson::Document& doc = doc_read.document;
  INFO("stdout line: " << line);
  INFO("stderr: " << stderr_text());
  REQUIRE_FALSE(doc_read.refused.has_value());
  REQUIRE(doc.IsObject());
  return std::move(doc);
}

int ServeProcess::close_and_wait(int wait_seconds) {
  ::close(stdin_fd_);
  stdin_fd_ = -1;
  return wait_for_exit(wait_seconds);
}

int ServeProcess::signal_and_wait(int signal, int wait_seconds) {
  ::kill(pid_, signal);
  return wait_for_exit(wait_seconds);
}

int ServeProcess::wait_for_exit(int wait_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("kode-gopher serve did not exit within " +
                           std::to_string(wait_seconds) + " s\n" + stderr_text());
}

std::string ServeProcess::remaining_output() {
  char chunk[65536];
  ssize_t n = 0;
  while ((n = ::read(stdout_fd_, chunk, sizeof chunk)) > 0) {
    buffered_.append(chunk, static_cast<std::size_t>(n));
  }
  std::string rest;
  rest.swap(buffered_);
  return rest;
}

std::string ServeProcess::stderr_text() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string write_unreachable_daemon_config(const std::string& dir) {
  const std::string path = dir + "/kode-gopher.ini";
  std::ofstream config(path);
  config << "[daemon]\nsocket = " << dir << "/nobody-listens.sock\nstate_dir = " << dir
         << "/state\n";
  return path;
}

std::string compact(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

}  // namespace kg::test
