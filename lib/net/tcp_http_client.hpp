// A blocking HTTP/1.1 client for one server on TCP (plain HTTP), adding fixed headers to every
// request: how the daemon reaches a Kubernetes sandbox through the agent-sandbox router, whose
// X-Sandbox-* headers pick the sandbox. One connection per request, as UnixHttpClient.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "http_client.hpp"

namespace kg::net {

class TcpHttpClient final : public HttpClient {
 public:
  TcpHttpClient(std::string host, std::uint16_t port,
                std::vector<std::pair<std::string, std::string>> headers = {})
      : host_(std::move(host)), port_(port), headers_(std::move(headers)) {}

  HttpResponse request(std::string_view method, std::string_view target, std::string_view body,
                       const HttpRequestOptions& options) const override;
  std::string describe() const override { return host_ + ":" + std::to_string(port_); }

 private:
  std::string host_;
  std::uint16_t port_;
  std::vector<std::pair<std::string, std::string>> headers_;
};

}  // namespace kg::net
