#include "kube_auth.hpp"

#include <Poco/Base64Encoder.h>
#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "json_members.hpp"
#include "json_reader.hpp"
#include "utc_time.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

// A credential is renewed this long before it expires, so no request carries one that expires
// on the way.
constexpr std::chrono::seconds kExpiryMargin{30};
// The most of a plugin's output kept for a message.
constexpr std::size_t kStderrKeep = 4096;

std::string base64(const std::string& text) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << text;
  encoder.close();
  return out.str();
}

// KUBERNETES_EXEC_INFO: what client-go hands a plugin (never interactive here), with the
// cluster when the kubeconfig asks for it (provideClusterInfo).
std::string exec_info(const KubeConfig& config) {
  const std::string& api_version = config.exec->api_version;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> out(buffer);
  out.StartObject();
  out.Key("apiVersion");
  out.String(api_version.c_str());
  out.Key("kind");
  out.String("ExecCredential");
  out.Key("spec");
  out.StartObject();
  out.Key("interactive");
  out.Bool(false);
  if (config.exec->provide_cluster_info) {
    out.Key("cluster");
    out.StartObject();
    out.Key("server");
    out.String(config.server.c_str());
    if (!config.ca_pem.empty()) {
      out.Key("certificate-authority-data");
      out.String(base64(config.ca_pem).c_str());
    }
    if (config.insecure_skip_tls_verify) {
      out.Key("insecure-skip-tls-verify");
      out.Bool(true);
    }
    out.EndObject();
  }
  out.EndObject();
  out.EndObject();
  return buffer.GetString();
}

std::string read_all(Poco::Pipe& pipe) {
  Poco::PipeInputStream in(pipe);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string resolve_command(const ExecPluginConfig& exec) {
  // client-go: a relative path with a separator is the kubeconfig folder's; a bare name is PATH's.
  if (exec.command.find('/') != std::string::npos && !fs::path(exec.command).is_absolute()) {
    return (fs::path(exec.base_dir) / exec.command).string();
  }
  return exec.command;
}

}  // namespace

ExecCredential parse_exec_credential(const std::string& json, const std::string& command) {
  const std::string where = "The exec credential plugin " + command;
  const rapidjson::Document doc = json::read_json(json, json::kUpstreamReplyLimits).document;
  if (!doc.IsObject()) {
    throw KubeConfigError(where + " printed no ExecCredential JSON: " + json.substr(0, 200));
  }
  const std::string kind = json::string_member(doc, "kind");
  if (kind != "ExecCredential") {
    throw KubeConfigError(where + " printed kind \"" + kind + "\", not ExecCredential");
  }
  const auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || !status->value.IsObject()) {
    throw KubeConfigError(where + " printed an ExecCredential without status");
  }
  ExecCredential credential;
  credential.token = json::string_member(status->value, "token");
  credential.client_cert_pem = json::string_member(status->value, "clientCertificateData");
  credential.client_key_pem = json::string_member(status->value, "clientKeyData");
  if (credential.token.empty() && credential.client_cert_pem.empty()) {
    throw KubeConfigError(where + " printed an ExecCredential with neither status.token nor "
                                  "status.clientCertificateData");
  }
  if (credential.client_cert_pem.empty() != credential.client_key_pem.empty()) {
    throw KubeConfigError(where + " printed status.clientCertificateData without clientKeyData, "
                                  "or the other way round");
  }
  if (const std::string expiry = json::string_member(status->value, "expirationTimestamp");
      !expiry.empty()) {
    const auto parsed = utc::parse_rfc3339(expiry);
    if (!parsed) {
      throw KubeConfigError(where + " printed status.expirationTimestamp \"" + expiry +
                            "\", which is not RFC 3339");
    }
    credential.expires = std::chrono::floor<std::chrono::seconds>(*parsed);
  }
  return credential;
}

ExecCredential KubeAuth::run_exec_plugin() const {
  const ExecPluginConfig& exec = *config_.exec;
  const std::string command = resolve_command(exec);
  Poco::Process::Env env;
  for (const auto& [name, value] : exec.env) env[name] = value;
  env["KUBERNETES_EXEC_INFO"] = exec_info(config_);
  Poco::Pipe in_pipe, out_pipe, err_pipe;
  std::string out, err;
  int status = 0;
  try {
    Poco::ProcessHandle process = Poco::Process::launch(command, exec.args, &in_pipe, &out_pipe,
                                                        &err_pipe, env);
    in_pipe.close();  // never interactive: the plugin reads end-of-file
    // Both pipes are drained at once, so a plugin writing much to stderr cannot block.
    std::thread err_reader([&] { err = read_all(err_pipe); });
    out = read_all(out_pipe);
    err_reader.join();
    status = process.wait();
  } catch (const Poco::Exception& e) {
    throw KubeConfigError("Cannot run the exec credential plugin " + command + " (" +
                          config_.source + "): " + e.displayText());
  }
  if (err.size() > kStderrKeep) err = err.substr(err.size() - kStderrKeep);
  if (status != 0) {
    throw KubeConfigError("The exec credential plugin " + command + " (" + config_.source +
                          ") exited with status " + std::to_string(status) +
                          (err.empty() ? std::string(" and printed nothing on stderr")
                                       : ": " + err));
  }
  return parse_exec_credential(out, command);
}

KubeCredentials KubeAuth::current() {
  KubeCredentials credentials;
  credentials.client_cert_pem = config_.client_cert_pem;
  credentials.client_key_pem = config_.client_key_pem;
  credentials.bearer_token = config_.token;
  if (!config_.token_file.empty()) {
    std::ifstream in(config_.token_file);
    if (!in) {
      throw KubeConfigError("Cannot read the token file " + config_.token_file + " (" +
                            config_.source + ")");
    }
    std::ostringstream text;
    text << in.rdbuf();
    credentials.bearer_token = text.str();
    while (!credentials.bearer_token.empty() &&
           std::isspace(static_cast<unsigned char>(credentials.bearer_token.back()))) {
      credentials.bearer_token.pop_back();
    }
  }
  if (config_.exec) {
    const std::lock_guard lock(mutex_);
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    if (!cached_ || (cached_->expires && *cached_->expires - kExpiryMargin <= now)) {
      cached_ = run_exec_plugin();
    }
    if (!cached_->token.empty()) credentials.bearer_token = cached_->token;
    if (!cached_->client_cert_pem.empty()) {
      credentials.client_cert_pem = cached_->client_cert_pem;
      credentials.client_key_pem = cached_->client_key_pem;
    }
  }
  return credentials;
}

void KubeAuth::forget_cached() noexcept {
  const std::lock_guard lock(mutex_);
  cached_.reset();
}

}  // namespace kg::sandbox
