// The credentials of each request to the API server, from a KubeConfig: a fixed token, a token
// file (re-read on every use, since service-account tokens rotate), a client certificate, or an
// exec plugin's ExecCredential (client.authentication.k8s.io v1 or v1beta1), cached until its
// expirationTimestamp (or, without one, until the server answers 401). Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "kube_config.hpp"

namespace kg::sandbox {

struct KubeCredentials {
  std::string bearer_token;     // empty: none
  std::string client_cert_pem;  // empty: none
  std::string client_key_pem;
};

// What an exec plugin printed, parsed. Throws KubeConfigError saying what is wrong.
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::sys_seconds> expires;  // (seconds: any year fits)
};
ExecCredential parse_exec_credential(const std::string& json, const std::string& command);

class KubeAuth {
 public:
  explicit KubeAuth(const KubeConfig& config) : config_(config) {}

  // Throws KubeConfigError (a token file that cannot be read, an exec plugin that fails: with
  // its stderr).
  KubeCredentials current();
  // The server refused the credentials (401): the next current() runs the exec plugin again.
  void forget_cached() noexcept;

 private:
  ExecCredential run_exec_plugin() const;

  KubeConfig config_;
  std::mutex mutex_;
  std::optional<ExecCredential> cached_;
};

}  // namespace kg::sandbox
