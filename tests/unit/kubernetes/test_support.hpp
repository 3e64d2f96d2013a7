// What the kubernetes provider's tests share: temporary folders and files, environment
// variables set for one test, and a real HTTP server on loopback (Poco HTTPServer) whose answers
// the test writes.
#pragma once

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/StreamCopier.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kg::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kg-k8s-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string write_file(const std::string& path, const std::string& text, int mode = 0644) {
  std::ofstream(path, std::ios::binary) << text;
  ::chmod(path.c_str(), static_cast<mode_t>(mode));
  return path;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Sets (or unsets, with nullopt) an environment variable until the end of the scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// What the server saw of one request.
struct SeenRequest {
  std::string method;
  std::string uri;
  std::string content_type;
  std::string authorization;
  std::string sandbox_id;  // X-Sandbox-ID (the agent-sandbox router's header)
  std::string body;
};

struct Answer {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// A real HTTP/1.1 server on 127.0.0.1 (a free port); `respond` writes each answer (called from
// the server's threads). Records every request.
class LoopbackHttpServer {
 public:
  using Respond = std::function<Answer(const SeenRequest&, int index)>;

  // tls: serve HTTPS with this context (plain HTTP without).
  explicit LoopbackHttpServer(Respond respond, Poco::Net::Context::Ptr tls = nullptr)
      : respond_(std::move(respond)),
        socket_(tls ? Poco::Net::ServerSocket(
                          Poco::Net::SecureServerSocket(Poco::Net::SocketAddress("127.0.0.1", 0), 64, tls))
                    : Poco::Net::ServerSocket(Poco::Net::SocketAddress("127.0.0.1", 0))),
        server_(new Factory(*this), socket_, new Poco::Net::HTTPServerParams) {
    server_.start();
  }
  ~LoopbackHttpServer() { server_.stopAll(true); }

  std::uint16_t port() const { return socket_.address().port(); }
  std::vector<SeenRequest> seen() const {
    const std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  class Handler : public Poco::Net::HTTPRequestHandler {
   public:
    explicit Handler(LoopbackHttpServer& server) : server_(server) {}
    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
      SeenRequest seen;
      seen.method = request.getMethod();
      seen.uri = request.getURI();
      seen.content_type = request.getContentType();
      seen.authorization = request.get("Authorization", "");
      seen.sandbox_id = request.get("X-Sandbox-ID", "");
      Poco::StreamCopier::copyToString(request.stream(), seen.body);
      int index = 0;
      {
        const std::lock_guard lock(server_.mutex_);
        index = static_cast<int>(server_.seen_.size());
        server_.seen_.push_back(seen);
      }
      const Answer answer = server_.respond_(seen, index);
      response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status));
      response.setContentType(answer.content_type);
      response.setContentLength(static_cast<std::streamsize>(answer.body.size()));
      response.send() << answer.body;
    }

   private:
    LoopbackHttpServer& server_;
  };
  class Factory : public Poco::Net::HTTPRequestHandlerFactory {
   public:
    explicit Factory(LoopbackHttpServer& server) : server_(server) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
      return new Handler(server_);
    }

   private:
    LoopbackHttpServer& server_;
  };

  Respond respond_;
  mutable std::mutex mutex_;
  std::vector<SeenRequest> seen_;
  Poco::Net::ServerSocket socket_;
  Poco::Net::HTTPServer server_;
};

}  // namespace kg::test
