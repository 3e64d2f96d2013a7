// A plain HTTP client for the team suite's transport tests: one request, the whole answer
// (status, headers, body; an SSE body is read to its end), over Poco's HTTPClientSession.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

namespace kg::test {

struct ProbeAnswer {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;

  std::string header(const std::string& lowercase_name) const {
    const auto it = headers.find(lowercase_name);
    return it == headers.end() ? std::string() : it->second;
  }
  // The JSON-RPC messages of the body: the one JSON object, or each SSE event's data.
  std::vector<rapidjson::Document> messages() const;
};

using ProbeHeaders = std::vector<std::pair<std::string, std::string>>;

class HttpProbe {
 public:
  HttpProbe(std::string host, int port) : host_(std::move(host)), port_(port) {}

  ProbeAnswer request(const std::string& method, const std::string& path, const std::string& body,
                      const ProbeHeaders& headers) const;
  // POST /mcp with Content-Type application/json and Accept for both answers.
  ProbeAnswer post_mcp(const std::string& body, ProbeHeaders headers = {}) const;

 private:
  std::string host_;
  int port_;
};

// A free loopback TCP port (bound and released; good enough for a test daemon).
int free_loopback_port();

}  // namespace kg::test
