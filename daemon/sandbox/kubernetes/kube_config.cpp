#include "kube_config.hpp"

#include <Poco/Base64Decoder.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KubeConfigError("Cannot read " + what + " " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string decode_base64(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::ostringstream out;
  try {
    out << decoder.rdbuf();
  } catch (const std::exception& e) {
    throw KubeConfigError(where + " is not valid base64: " + e.what());
  }
  return out.str();
}

// One kubeconfig's fields, each message naming the file and the field.
class KubeconfigReader {
 public:
  KubeconfigReader(std::string path, YAML::Node root)
      : path_(std::move(path)), root_(std::move(root)),
        dir_(fs::path(path_).parent_path().string()) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw KubeConfigError("kubeconfig " + path_ + ": " + field + ": " + problem);
  }

  // The entry of `list` (clusters, users, contexts) named `name`, its inner `key` map.
  YAML::Node named(const std::string& list, const std::string& name, const std::string& key,
                   const std::string& referrer) const {
    const YAML::Node entries = root_[list];
    if (entries && !entries.IsSequence()) fail(list, "must be a list");
    if (entries) {
      for (const auto& entry : entries) {
        if (entry["name"] && entry["name"].as<std::string>("") == name) {
          const YAML::Node inner = entry[key];
          if (!inner || !inner.IsMap()) fail(list + "[" + name + "]." + key, "missing or not a map");
          return inner;
        }
      }
    }
    fail(referrer, "names " + list.substr(0, list.size() - 1) + " \"" + name +
                       "\", which is not in " + list);
  }

  std::string text(const YAML::Node& map, const std::string& key, const std::string& field) const {
    const YAML::Node value = map[key];
    if (!value || value.IsNull()) return {};
    if (!value.IsScalar()) fail(field, "must be a string");
    return value.as<std::string>();
  }

  // A path relative to the kubeconfig's folder, as kubectl resolves them.
  std::string resolve(const std::string& path) const {
    if (path.empty() || fs::path(path).is_absolute()) return path;
    return (fs::path(dir_) / path).string();
  }

  // `<key>-data` (base64) or `<key>` (a file), PEM either way.
  std::string pem(const YAML::Node& map, const std::string& key, const std::string& field) const {
    const std::string data = text(map, key + "-data", field + "-data");
    if (!data.empty()) return decode_base64(data, "kubeconfig " + path_ + ": " + field + "-data");
    const std::string file = text(map, key, field);
    if (file.empty()) return {};
    try {
      return read_text_file(resolve(file), "the file of");
    } catch (const KubeConfigError& e) {
      fail(field, e.what());
    }
  }

  const YAML::Node& root() const { return root_; }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string path_;
  YAML::Node root_;
  std::string dir_;
};

ExecPluginConfig read_exec(const KubeconfigReader& reader, const YAML::Node& exec,
                           const std::string& field) {
  ExecPluginConfig config;
  config.api_version = reader.text(exec, "apiVersion", field + ".apiVersion");
  if (config.api_version != "client.authentication.k8s.io/v1" &&
      config.api_version != "client.authentication.k8s.io/v1beta1") {
    reader.fail(field + ".apiVersion",
                "must be client.authentication.k8s.io/v1 or /v1beta1, got \"" + config.api_version + "\"");
  }
  config.command = reader.text(exec, "command", field + ".command");
  if (config.command.empty()) reader.fail(field + ".command", "missing");
  if (const YAML::Node args = exec["args"]) {
    if (!args.IsSequence()) reader.fail(field + ".args", "must be a list of strings");
    for (const auto& arg : args) config.args.push_back(arg.as<std::string>());
  }
  if (const YAML::Node env = exec["env"]) {
    if (!env.IsSequence()) reader.fail(field + ".env", "must be a list of {name, value}");
    for (const auto& entry : env) {
      const std::string name = reader.text(entry, "name", field + ".env[].name");
      if (name.empty()) reader.fail(field + ".env[].name", "missing");
      config.env.emplace_back(name, reader.text(entry, "value", field + ".env[].value"));
    }
  }
  config.base_dir = reader.dir();
  config.provide_cluster_info =
      reader.text(exec, "provideClusterInfo", field + ".provideClusterInfo") == "true";
  return config;
}

}  // namespace

KubeConfig load_kubeconfig(const std::string& path, const std::string& wanted_context) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw KubeConfigError("Cannot read kubeconfig " + path);
  } catch (const YAML::Exception& e) {
    throw KubeConfigError("kubeconfig " + path + " is not valid YAML: " + e.what());
  }
  if (!root.IsMap()) throw KubeConfigError("kubeconfig " + path + " is not a YAML map");
  const KubeconfigReader reader(path, root);
  try {
    std::string context = wanted_context;
    if (context.empty()) {
      context = reader.text(root, "current-context", "current-context");
      if (context.empty()) {
        reader.fail("current-context", "not set: set it (kubectl config use-context) or name a "
                                       "context in [kubernetes] context");
      }
    }
    const std::string context_field = wanted_context.empty() ? "current-context" : "context";
    const YAML::Node ctx =
        wanted_context.empty()
            ? reader.named("contexts", context, "context", "current-context")
            : reader.named("contexts", context, "context", "[kubernetes] context");
    const std::string ctx_field = "contexts[" + context + "].context";
    const std::string cluster_name = reader.text(ctx, "cluster", ctx_field + ".cluster");
    if (cluster_name.empty()) reader.fail(ctx_field + ".cluster", "missing");
    const std::string user_name = reader.text(ctx, "user", ctx_field + ".user");

    KubeConfig config;
    config.source = "kubeconfig " + path + ", context " + context;
    config.namespace_ = reader.text(ctx, "namespace", ctx_field + ".namespace");

    const YAML::Node cluster =
        reader.named("clusters", cluster_name, "cluster", ctx_field + ".cluster");
    const std::string cluster_field = "clusters[" + cluster_name + "].cluster";
    config.server = reader.text(cluster, "server", cluster_field + ".server");
    if (config.server.empty()) reader.fail(cluster_field + ".server", "missing");
    if (!config.server.starts_with("https://") && !config.server.starts_with("http://")) {
      reader.fail(cluster_field + ".server", "must be an https:// (or http://) URL, got \"" +
                                                 config.server + "\"");
    }
    config.ca_pem = reader.pem(cluster, "certificate-authority", cluster_field + ".certificate-authority");
    const std::string insecure =
        reader.text(cluster, "insecure-skip-tls-verify", cluster_field + ".insecure-skip-tls-verify");
    config.insecure_skip_tls_verify = insecure == "true";
    for (const char* unsupported : {"tls-server-name", "proxy-url"}) {
      if (!reader.text(cluster, unsupported, cluster_field + "." + unsupported).empty()) {
        reader.fail(cluster_field + "." + unsupported,
                    "is not supported by kode-gopher's Kubernetes client: reach the API server "
                    "directly, by the name its certificate carries");
      }
    }

    if (!user_name.empty()) {
      const YAML::Node user = reader.named("users", user_name, "user", ctx_field + ".user");
      const std::string user_field = "users[" + user_name + "].user";
      config.token = reader.text(user, "token", user_field + ".token");
      config.token_file = reader.resolve(reader.text(user, "tokenFile", user_field + ".tokenFile"));
      config.client_cert_pem =
          reader.pem(user, "client-certificate", user_field + ".client-certificate");
      config.client_key_pem = reader.pem(user, "client-key", user_field + ".client-key");
      if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
        reader.fail(user_field, "has a client certificate without a key, or a key without a "
                                "certificate: give both");
      }
      if (const YAML::Node exec = user["exec"]) {
        if (!exec.IsMap()) reader.fail(user_field + ".exec", "must be a map");
        config.exec = read_exec(reader, exec, user_field + ".exec");
      }
      if (user["auth-provider"]) {
        reader.fail(user_field + ".auth-provider",
                    "auth providers are not supported (kubectl dropped them too): use an exec "
                    "plugin such as gke-gcloud-auth-plugin");
      }
    }
    return config;
  } catch (const YAML::Exception& e) {
    throw KubeConfigError("kubeconfig " + path + ": " + e.what());
  }
}

KubeConfig load_in_cluster_config(const std::string& account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    throw KubeConfigError("In-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                          "are not set (the daemon does not run in a pod)");
  }
  KubeConfig config;
  config.source = "in-cluster service account (" + account_dir + ")";
  const std::string host_text = host;
  // An IPv6 service address needs brackets in a URL.
  config.server = "https://" + (host_text.find(':') != std::string::npos ? "[" + host_text + "]" : host_text) +
                  ":" + port;
  config.token_file = account_dir + "/token";
  if (!fs::exists(config.token_file)) {
    throw KubeConfigError("In-cluster config: " + config.token_file +
                          " does not exist: mount the service account token (automountServiceAccountToken)");
  }
  config.ca_pem = read_text_file(account_dir + "/ca.crt", "the in-cluster CA");
  std::error_code ec;
  if (fs::exists(account_dir + "/namespace", ec)) {
    config.namespace_ = read_text_file(account_dir + "/namespace", "the in-cluster namespace");
    while (!config.namespace_.empty() && std::isspace(static_cast<unsigned char>(config.namespace_.back()))) {
      config.namespace_.pop_back();
    }
  }
  return config;
}

std::string default_kubeconfig_path() {
  if (const char* list = std::getenv("KUBECONFIG"); list != nullptr && *list != '\0') {
    const std::string text = list;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find(':', start), text.size());
      const std::string entry = text.substr(start, end - start);
      std::error_code ec;
      if (!entry.empty() && fs::exists(entry, ec)) return entry;
      start = end + 1;
    }
    return {};
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    const std::string path = std::string(home) + "/.kube/config";
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
  }
  return {};
}

KubeConfig resolve_kube_config(const std::string& kubeconfig, const std::string& context) {
  if (!kubeconfig.empty()) return load_kubeconfig(kubeconfig, context);
  if (const std::string path = default_kubeconfig_path(); !path.empty()) {
    return load_kubeconfig(path, context);
  }
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST"); host != nullptr && *host != '\0') {
    if (!context.empty()) {
      throw KubeConfigError("[kubernetes] context = " + context +
                            " names a kubeconfig context, but there is no kubeconfig ($KUBECONFIG, "
                            "~/.kube/config or [kubernetes] kubeconfig); in a pod, remove the key");
    }
    return load_in_cluster_config();
  }
  throw KubeConfigError("No Kubernetes configuration: set [kubernetes] kubeconfig (or $KUBECONFIG, "
                        "or make ~/.kube/config), or run the daemon in a pod with a service account");
}

}  // namespace kg::sandbox
