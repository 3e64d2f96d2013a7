#include "kube_client.hpp"
#include "json_reader.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <rapidjson/document.h>

#include <memory>
#include <sstream>

namespace kg::sandbox {
namespace {

// The API server's answers are small (one object, or a list of our claims).
constexpr std::size_t kMaxResponseBytes = 16u << 20;

void initialize_ssl_once() {
  static const bool initialized = [] {
    Poco::Net::initializeSSL();
    return true;
  }();
  (void)initialized;
}

std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  return text;
}

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

Bio memory_bio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every certificate of a PEM bundle goes into the context's trust store.
void trust_ca_bundle(SSL_CTX* ctx, const std::string& pem, const std::string& source) {
  const Bio bio = memory_bio(pem);
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, cert);
    X509_free(cert);
    ++added;
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (added == 0) {
    throw KubeConfigError("The cluster's certificate authority (" + source +
                          ") holds no PEM certificate");
  }
}

void use_client_certificate(SSL_CTX* ctx, const KubeCredentials& credentials,
                            const std::string& source) {
  const Bio cert_bio = memory_bio(credentials.client_cert_pem);
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  if (cert == nullptr || SSL_CTX_use_certificate(ctx, cert) != 1) {
    if (cert != nullptr) X509_free(cert);
    throw KubeConfigError("The client certificate (" + source + ") cannot be used: " + openssl_error());
  }
  X509_free(cert);
  // The rest of the file: intermediate certificates sent along.
  while (X509* extra = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add_extra_chain_cert(ctx, extra) != 1) X509_free(extra);
  }
  ERR_clear_error();
  const Bio key_bio = memory_bio(credentials.client_key_pem);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  if (key == nullptr || SSL_CTX_use_PrivateKey(ctx, key) != 1) {
    if (key != nullptr) EVP_PKEY_free(key);
    throw KubeConfigError("The client key (" + source + ") cannot be used: " + openssl_error());
  }
  EVP_PKEY_free(key);
  if (SSL_CTX_check_private_key(ctx) != 1) {
    throw KubeConfigError("The client key (" + source + ") does not match its certificate");
  }
}

// The server's Status answer ({"kind":"Status","reason","message","code"}) as a KubeApiError.
KubeApiError api_error(const std::string& method, const std::string& path, int status,
                       const std::string& body) {
  std::string reason, message;
  const rapidjson::Document doc = json::read_json(body, json::kUpstreamReplyLimits).document;
  if (doc.IsObject()) {
    if (auto it = doc.FindMember("reason"); it != doc.MemberEnd() && it->value.IsString()) {
      reason = it->value.GetString();
    }
    if (auto it = doc.FindMember("message"); it != doc.MemberEnd() && it->value.IsString()) {
      message = it->value.GetString();
    }
  }
  if (message.empty()) message = body.substr(0, 500);
  std::string text = "The Kubernetes API server answered " + method + " " +
                     path.substr(0, path.find('?')) + " with " + std::to_string(status);
  if (!reason.empty()) text += " " + reason;
  if (!message.empty()) text += ": " + message;
  return KubeApiError(text, status, reason);
}

}  // namespace

bool is_dns1123_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !((c == '-' || c == '.') && i > 0 && i + 1 < name.size())) return false;
  }
  return true;
}

KubeClient::KubeClient(KubeConfig config, std::chrono::milliseconds timeout)
    : config_(std::move(config)), timeout_(timeout), auth_(config_) {
  Poco::URI uri;
  try {
    uri = Poco::URI(config_.server);
  } catch (const Poco::Exception& e) {
    throw KubeConfigError("The API server URL " + config_.server + " (" + config_.source +
                          ") is not a URL: " + e.displayText());
  }
  if (uri.getScheme() != "https" && uri.getScheme() != "http") {
    throw KubeConfigError("The API server URL " + config_.server + " (" + config_.source +
                          ") must be https:// or http://");
  }
  https_ = uri.getScheme() == "https";
  host_ = uri.getHost();
  port_ = uri.getPort();
  if (https_) {
    initialize_ssl_once();
    // Fails now, at daemon start, when the CA or client certificate is unusable.
    context_for(auth_.current());
  }
}

KubeClient::~KubeClient() = default;

Poco::AutoPtr<Poco::Net::Context> KubeClient::context_for(const KubeCredentials& credentials) {
  const std::lock_guard lock(mutex_);
  if (context_ && context_cert_pem_ == credentials.client_cert_pem) return context_;
  Poco::Net::Context::Params params;
  params.verificationMode = config_.insecure_skip_tls_verify ? Poco::Net::Context::VERIFY_NONE
                                                             : Poco::Net::Context::VERIFY_RELAXED;
  params.loadDefaultCAs = config_.ca_pem.empty();
  params.cipherList = "HIGH:!aNULL:!eNULL:!MD5";
  Poco::AutoPtr<Poco::Net::Context> context(
      new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params));
  SSL_CTX* ctx = context->sslContext();
  if (!config_.ca_pem.empty()) trust_ca_bundle(ctx, config_.ca_pem, config_.source);
  if (!credentials.client_cert_pem.empty()) use_client_certificate(ctx, credentials, config_.source);
  if (!config_.insecure_skip_tls_verify) {
    // OpenSSL checks the certificate's name against the server's (a DNS name or an IP
    // address: API servers are often reached by IP), during the handshake.
    X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
    Poco::Net::IPAddress ip;
    const bool is_ip = Poco::Net::IPAddress::tryParse(host_, ip);
    const int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host_.c_str())
                         : X509_VERIFY_PARAM_set1_host(param, host_.c_str(), host_.size());
    if (ok != 1) throw KubeConfigError("Cannot check the API server's name " + host_);
    context->enableExtendedCertificateVerification(false);
  }
  context_ = context;
  context_cert_pem_ = credentials.client_cert_pem;
  return context_;
}

std::string KubeClient::exchange(const std::string& method, const std::string& path,
                                 const std::string& content_type, const std::string& body,
                                 const KubeCredentials& credentials, int& status) {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (https_) {
    session = std::make_unique<Poco::Net::HTTPSClientSession>(host_, port_, context_for(credentials));
  } else {
    session = std::make_unique<Poco::Net::HTTPClientSession>(host_, port_);
  }
  session->setTimeout(Poco::Timespan(std::chrono::duration_cast<std::chrono::microseconds>(timeout_).count()));
  session->setKeepAlive(false);
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Accept", "application/json");
  request.set("User-Agent", "kode-gopherd");
  if (!credentials.bearer_token.empty()) {
    request.set("Authorization", "Bearer " + credentials.bearer_token);
  }
  if (!body.empty() || method == "POST" || method == "PATCH") {
    request.setContentType(content_type);
    request.setContentLength(static_cast<std::streamsize>(body.size()));
  }
  try {
    std::ostream& out = session->sendRequest(request);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    std::string text;
    char buffer[8192];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxResponseBytes) {
        throw KubeTransportError("The API server's answer to " + method + " " + path +
                                 " is larger than 16 MiB");
      }
    }
    status = static_cast<int>(response.getStatus());
    return text;
  } catch (const Poco::Net::SSLException& e) {
    throw KubeTransportError("TLS with the API server " + config_.server + " failed (" +
                             config_.source + "): " + e.displayText());
  } catch (const Poco::Exception& e) {
    throw KubeTransportError("Cannot reach the API server " + config_.server + " (" +
                             config_.source + "): " + e.displayText());
  }
}

std::string KubeClient::request(const std::string& method, const std::string& path,
                                const std::string& content_type, const std::string& body) {
  int status = 0;
  std::string text = exchange(method, path, content_type, body, auth_.current(), status);
  if (status == 401 && config_.exec) {
    // An exec credential the server no longer takes: ask the plugin again, once.
    auth_.forget_cached();
    text = exchange(method, path, content_type, body, auth_.current(), status);
  }
  if (status < 200 || status >= 300) throw api_error(method, path, status, text);
  return text;
}

std::string KubeClient::get(const std::string& path) { return request("GET", path, {}, {}); }

std::string KubeClient::post(const std::string& path, const std::string& json) {
  return request("POST", path, "application/json", json);
}

std::string KubeClient::merge_patch(const std::string& path, const std::string& json) {
  return request("PATCH", path, "application/merge-patch+json", json);
}

std::string KubeClient::remove(const std::string& path) {
  return request("DELETE", path, {}, {});
}

}  // namespace kg::sandbox
