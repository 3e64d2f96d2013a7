// Where the Kubernetes API server is and how to authenticate to it: read from a kubeconfig file
// (the current or a named context: cluster server, CA, insecure-skip-tls-verify; user token,
// tokenFile, client certificate and key, exec plugin; the context's namespace) with yaml-cpp, or
// from the in-cluster service account (KUBERNETES_SERVICE_HOST/PORT and
// /var/run/secrets/kubernetes.io/serviceaccount). Pure data: KubeAuth (kube_auth.hpp) turns it
// into credentials, KubeClient (kube_client.hpp) into requests.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kg::sandbox {

// A kubeconfig or service account that cannot be used; what() names the file and the field.
class KubeConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// users[].user.exec: a command printing an ExecCredential (client.authentication.k8s.io).
struct ExecPluginConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;      // as written; relative paths with a '/' are the kubeconfig folder's
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to the daemon's environment
  std::string base_dir;     // the kubeconfig's folder
  // provideClusterInfo: KUBERNETES_EXEC_INFO carries spec.cluster (server, CA), as client-go's.
  bool provide_cluster_info = false;
};

struct KubeConfig {
  std::string source;     // for messages: "kubeconfig /path, context x" or "in-cluster ..."
  std::string server;     // https://host:port (http:// for `kubectl proxy`)
  std::string ca_pem;     // empty: the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string client_cert_pem;  // both or neither
  std::string client_key_pem;
  std::string token;       // a fixed bearer token
  std::string token_file;  // re-read on every use (service-account tokens rotate)
  std::optional<ExecPluginConfig> exec;
  std::string namespace_;  // the context's (or service account's) namespace; may be empty
};

// Reads `path` and picks `context` (empty: current-context). Throws KubeConfigError.
KubeConfig load_kubeconfig(const std::string& path, const std::string& context = {});

// The in-cluster config: host and port from the environment, token, CA and namespace from
// `account_dir`. Throws KubeConfigError.
KubeConfig load_in_cluster_config(
    const std::string& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// The kubeconfig kubectl would read: $KUBECONFIG's first entry, else ~/.kube/config (empty when
// neither names a file that exists).
std::string default_kubeconfig_path();

// What the provider uses: `kubeconfig` when set; else the default kubeconfig when it exists;
// else the in-cluster config when KUBERNETES_SERVICE_HOST is set; else a KubeConfigError saying
// what to configure.
KubeConfig resolve_kube_config(const std::string& kubeconfig, const std::string& context);

}  // namespace kg::sandbox
