// A small client of the Kubernetes API server's REST API: JSON GET, POST, merge-PATCH and
// DELETE over HTTPS (Poco NetSSL: the cluster's CA and client certificate from memory, the
// server's name or IP checked by OpenSSL) or plain HTTP (`kubectl proxy`), with the bearer
// token or client certificate KubeAuth gives. A non-2xx answer is a KubeApiError carrying the
// server's Status reason and message. One connection per request; thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Poco/AutoPtr.h>

#include "kube_auth.hpp"
#include "kube_config.hpp"

namespace Poco::Net {
class Context;
}

namespace kg::sandbox {

// The API server answered, but not with success. status: the HTTP status (404: not found, ...);
// reason: the Status object's reason (NotFound, Forbidden, ...), or empty.
class KubeApiError : public std::runtime_error {
 public:
  KubeApiError(const std::string& message, int status, std::string reason)
      : std::runtime_error(message), status_(status), reason_(std::move(reason)) {}
  int status() const noexcept { return status_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  int status_;
  std::string reason_;
};

// The API server could not be reached, or the exchange broke off (what() says where and why).
class KubeTransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KubeClient {
 public:
  // Throws KubeConfigError when the server URL, CA or client certificate cannot be used.
  KubeClient(KubeConfig config, std::chrono::milliseconds timeout);
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  // Each returns the response body of a 2xx answer. `path` is the API path with its query
  // ("/apis/.../namespaces/x/sandboxclaims?labelSelector=..."). Throws KubeApiError,
  // KubeTransportError, KubeConfigError (credentials).
  std::string get(const std::string& path);
  std::string post(const std::string& path, const std::string& json);
  std::string merge_patch(const std::string& path, const std::string& json);
  std::string remove(const std::string& path);

  const KubeConfig& config() const noexcept { return config_; }
  // The server, for messages.
  const std::string& server() const noexcept { return config_.server; }

 private:
  std::string request(const std::string& method, const std::string& path,
                      const std::string& content_type, const std::string& body);
  std::string exchange(const std::string& method, const std::string& path,
                       const std::string& content_type, const std::string& body,
                       const KubeCredentials& credentials, int& status);
  Poco::AutoPtr<Poco::Net::Context> context_for(const KubeCredentials& credentials);

  KubeConfig config_;
  std::chrono::milliseconds timeout_;
  KubeAuth auth_;
  bool https_ = true;
  std::string host_;
  unsigned short port_ = 443;
  std::mutex mutex_;  // guards the cached TLS context
  Poco::AutoPtr<Poco::Net::Context> context_;
  std::string context_cert_pem_;  // the client certificate context_ was made with
};

// A Kubernetes name in a path segment or a label selector value needs no escaping when it is a
// DNS-1123 name; this checks that (the config does too, this guards what the server returns).
bool is_dns1123_name(std::string_view name);

}  // namespace kg::sandbox
