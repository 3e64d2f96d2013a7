#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kg::test {
namespace fs = std::filesystem;

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) throw std::runtime_error(std::string("test needs $") + name);
  return value;
}

std::string unique_temp_dir(const std::string& prefix) {
  std::random_device rd;
  const auto dir = fs::temp_directory_path() / (prefix + std::to_string(rd()));
  fs::create_directories(dir);
  return dir.string();
}

namespace {

// "\nyaegi_runner_binary = <path>": the option's, else the build's runner (KG_YAEGI_RUNNER).
std::string yaegi_runner_key(const DaemonFixtureOptions& options) {
  const char* built = std::getenv("KG_YAEGI_RUNNER");
  const std::string runner = options.yaegi_runner_binary.value_or(built != nullptr ? built : "");
  return runner.empty() ? std::string() : "\nyaegi_runner_binary = " + runner;
}

}  // namespace

DaemonFixture::DaemonFixture(DaemonFixtureOptions options)
    : dir_(unique_temp_dir("kg-it-")),
      config_path_(dir_ + "/kode-gopher.ini"),
      socket_path_(dir_ + "/daemon.sock"),
      state_dir_(dir_ + "/state"),
      prewarm_(!options.base_cache_dir && !options.empty_base_cache),
      client_(socket_path_) {
  if (options.empty_base_cache) {
    options.base_cache_dir = dir_ + "/empty-base-cache";
    fs::create_directories(*options.base_cache_dir);
  }
  if (options.default_state_dir) state_dir_ = "/var/lib/kode-gopher";  // what root gets
  std::ofstream config(config_path_);
  config << "[daemon]\nsocket = " << socket_path_
         << (options.default_state_dir ? "" : "\nstate_dir = " + state_dir_)
         << "\nlog_level = debug\nmax_sessions = 8\n"
         << "[plugins]\ndirs = " << required_env("KG_PLUGIN_DIR") << [&] {
              std::string more;
              for (const auto& dir : options.extra_plugin_dirs) more += ":" + dir;
              return more;
            }() << "\n"
         << "[sandbox]\nserver_binary = " << required_env("KG_SANDBOX_SERVER")
         << "\ncacheprog_binary = " << required_env("KG_CACHEPROG")
         << "\nbase_cache_dir = " << options.base_cache_dir.value_or(required_env("KG_BASE_CACHE"))
         << "\nbase_modcache_dir = " << required_env("KG_BASE_MODCACHE")
         << yaegi_runner_key(options)
         // Tests count the sandboxes they cause; the warm pool has a test of its own.
         << "\nwarm_pool = 0\n" << options.extra_sandbox_keys
         << "[limits]\nrun_timeout_ms = 20000\nbuild_timeout_ms = 300000\n"
         << options.extra_sections;
}

DaemonFixture::~DaemonFixture() {
  if (pid_ > 0) kill_hard();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

// The shared base caches are built once per test process, up front, so that no test's first call
// waits minutes for them (and no request timeout has to allow for it).
void prewarm_once(const std::string& daemon, const std::string& config_path) {
  static std::once_flag once;
  std::call_once(once, [&] {
    Poco::Pipe output;
    auto process = Poco::Process::launch(daemon, {"--config", config_path, "--prewarm"}, nullptr,
                                         &output, &output);
    Poco::PipeInputStream in(output);
    std::stringstream text;
    text << in.rdbuf();
    if (process.wait() != 0) throw std::runtime_error("kode-gopherd --prewarm failed:\n" + text.str());
  });
}

void prewarm_shared_caches() {
  const DaemonFixture fixture;
  prewarm_once(required_env("KG_DAEMON"), fixture.config_path());
}

void DaemonFixture::start() {
  const std::string daemon = required_env("KG_DAEMON");
  if (prewarm_) prewarm_once(daemon, config_path_);
  const std::string log = dir_ + "/daemon.log";
  std::fflush(stdout);  // the child must not print the parent's buffered output again
  pid_ = ::fork();
  if (pid_ == 0) {
    // A test that crashes must not leave its daemon behind, nor hold the test runner's pipes.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    FILE* err = std::freopen(log.c_str(), "a", stderr);
    FILE* out = std::freopen(log.c_str(), "a", stdout);
    (void)err;
    (void)out;
    ::execl(daemon.c_str(), daemon.c_str(), "--config", config_path_.c_str(), nullptr);
    ::_exit(127);
  }
  started_pid_ = pid_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      std::ifstream in(log);
      std::stringstream text;
      text << in.rdbuf();
      throw std::runtime_error("kode-gopherd exited while starting:\n" + text.str());
    }
    try {
      if (client_.get("/v1/health").status == 200) return;
    } catch (const net::HttpTransportError&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("kode-gopherd did not answer within 3 minutes");
}

bool DaemonFixture::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void DaemonFixture::stop_gracefully() {
  REQUIRE(pid_ > 0);
  ::kill(pid_, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(pid_, &status, 0) == pid_);
  pid_ = -1;
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

void DaemonFixture::kill_hard() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

net::HttpResponse DaemonFixture::get(const std::string& target) const {
  return client_.get(target);
}

net::HttpResponse DaemonFixture::post(const std::string& target, const std::string& body) const {
  net::HttpRequestOptions options;
  options.timeout = std::chrono::minutes(6);
  return client_.request("POST", target, body, options);
}

net::HttpResponse DaemonFixture::del(const std::string& target) const {
  return client_.request("DELETE", target, {}, {});
}

rapidjson::Document DaemonFixture::json(const net::HttpResponse& response) const {
  kg::json::ReadJson doc_read = kg::test::read_test_json(response.body);
  rapidjson::Document& doc = doc_read.document;
  INFO("body: " << response.body);
  REQUIRE_FALSE(doc_read.refused.has_value());
  return std::move(doc);
}

std::string DaemonFixture::open_session() {
  const auto response = post("/v1/sessions", R"({"client":"integration-test"})");
  INFO(response.body);
  REQUIRE(response.status == 201);
  return json_string(json(response), "id");
}

rapidjson::Document DaemonFixture::execute(const std::string& session_id,
                                           const std::string& main_go,
                                           const std::string& extra_members) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("files");
  w.StartObject();
  w.Key("main.go");
  w.String(main_go.c_str());
  w.EndObject();
  w.EndObject();
  std::string body = buffer.GetString();
  if (!extra_members.empty()) body = body.substr(0, body.size() - 1) + "," + extra_members + "}";
  const auto response = post("/v1/sessions/" + session_id + "/execute", body);
  INFO("execute answered " << response.status << ": " << response.body);
  REQUIRE(response.status == 200);
  return json(response);
}

int DaemonFixture::post_streaming(const std::string& target, const std::string& body,
                                  const std::function<void(const std::string&)>& on_line) const {
  Poco::Net::StreamSocket socket;
  socket.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, socket_path_));
  socket.setReceiveTimeout(Poco::Timespan(600, 0));
  Poco::Net::HTTPClientSession session(socket);
  Poco::Net::HTTPRequest request("POST", target, Poco::Net::HTTPMessage::HTTP_1_1);
  request.setHost("localhost");
  request.set("Accept", "application/x-ndjson");
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::string line;
  while (std::getline(in, line)) on_line(line);
  return static_cast<int>(response.getStatus());
}

std::string read_proc_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

std::vector<pid_t> DaemonFixture::sandbox_processes() const {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_proc_file(entry.path() / "cmdline");
    // bubblewrap names the state dir (its binds); everything inside a sandbox, which shows no host
    // path, is found by its cgroup: this daemon's folder, kode-gopher-<pid>.
    const std::string cgroups = read_proc_file(entry.path() / "cgroup");
    const bool in_daemon_cgroup =
        started_pid_ > 0 &&
        cgroups.find("/kode-gopher-" + std::to_string(started_pid_) + "/") != std::string::npos;
    if (cmdline.find(state_dir_ + "/") != std::string::npos || in_daemon_cgroup) {
      pids.push_back(std::stoi(name));
    }
  }
  return pids;
}

int run_cli(const std::vector<std::string>& args, std::string& out, std::string& err) {
  Poco::Pipe out_pipe, err_pipe;
  Poco::Process::Args argv(args.begin(), args.end());
  auto handle = Poco::Process::launch(required_env("KG_CLI"), argv, nullptr, &out_pipe, &err_pipe);
  // Read stderr on a thread so neither pipe can fill up and stall the CLI.
  std::thread err_reader([&] {
    Poco::PipeInputStream in(err_pipe);
    std::stringstream text;
    text << in.rdbuf();
    err = text.str();
  });
  Poco::PipeInputStream in(out_pipe);
  std::stringstream text;
  text << in.rdbuf();
  out = text.str();
  err_reader.join();
  return handle.wait();
}

std::string json_string(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return it->value.GetString();
}

}  // namespace kg::test
