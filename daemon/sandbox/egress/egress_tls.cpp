#include "egress_tls.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kg::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSystemBundle = "/etc/ssl/certs/ca-certificates.crt";
constexpr std::string_view kGoogleApiSuffix = ".googleapis.com";
constexpr auto kLeafLifetime = std::chrono::hours(24);
constexpr auto kLeafRenewBefore = std::chrono::hours(1);

EVP_PKEY* key_of(const std::shared_ptr<void>& key) { return static_cast<EVP_PKEY*>(key.get()); }
X509* cert_of(const std::shared_ptr<void>& cert) { return static_cast<X509*>(cert.get()); }

std::shared_ptr<void> hold_key(EVP_PKEY* key) {
  return std::shared_ptr<void>(key, [](void* k) { EVP_PKEY_free(static_cast<EVP_PKEY*>(k)); });
}
std::shared_ptr<void> hold_cert(X509* cert) {
  return std::shared_ptr<void>(cert, [](void* c) { X509_free(static_cast<X509*>(c)); });
}

[[noreturn]] void fail(const std::string& what) {
  throw EgressTlsError(what + ": " + openssl_errors());
}

EVP_PKEY* new_ec_key() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (key == nullptr) fail("Cannot generate an EC key");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  if (extension == nullptr) fail(std::string("Cannot make certificate extension ") + value);
  const int added = X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
  if (added != 1) fail("Cannot add a certificate extension");
}

void set_random_serial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) fail("Cannot draw a certificate serial");
  bytes[0] &= 0x7f;  // positive
  BIGNUM* number = BN_bin2bn(bytes, sizeof bytes, nullptr);
  ASN1_INTEGER* serial = BN_to_ASN1_INTEGER(number, nullptr);
  BN_free(number);
  if (serial == nullptr || X509_set_serialNumber(cert, serial) != 1) fail("Cannot set a serial");
  ASN1_INTEGER_free(serial);
}

// A certificate for `subject_cn` valid from an hour before `now` for `lifetime`, with key `key`,
// to be signed by `issuer` (nullptr: self-signed).
X509* new_certificate(const std::string& subject_cn, EVP_PKEY* key, X509* issuer,
                      std::chrono::system_clock::time_point now, std::chrono::seconds lifetime) {
  X509* cert = X509_new();
  if (cert == nullptr) fail("Cannot make a certificate");
  X509_set_version(cert, 2);
  set_random_serial(cert);
  const std::time_t at = std::chrono::system_clock::to_time_t(now);
  if (ASN1_TIME_adj(X509_getm_notBefore(cert), at, 0, -3600) == nullptr ||
      ASN1_TIME_adj(X509_getm_notAfter(cert), at, 0, static_cast<long>(lifetime.count())) == nullptr) {
    fail("Cannot set a certificate's validity");
  }
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("kode-gopher"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(subject_cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert, issuer != nullptr ? X509_get_subject_name(issuer) : name);
  if (X509_set_pubkey(cert, key) != 1) fail("Cannot set a certificate's key");
  return cert;
}

std::string pem_of(X509* cert) {
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(out, cert);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  std::string pem(data, static_cast<std::size_t>(size));
  BIO_free(out);
  return pem;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EgressTlsError("Cannot read " + path.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `path` with `mode`, atomically (a temporary file renamed into place).
void write_private(const fs::path& path, const std::string& text, mode_t mode) {
  const fs::path temporary = path.string() + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) {
    throw EgressTlsError("Cannot write " + temporary.string() + ": " + std::strerror(errno));
  }
  ::fchmod(::fileno(file), mode);
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written) {
    throw EgressTlsError("Cannot write " + temporary.string() + ": " + std::strerror(errno));
  }
  fs::rename(temporary, path);
}

}  // namespace

bool is_google_api_host(std::string_view host_name) {
  return host_name.size() > kGoogleApiSuffix.size() && host_name.ends_with(kGoogleApiSuffix);
}

std::string openssl_errors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof line);
    text += (text.empty() ? "" : "; ") + std::string(line);
  }
  return text.empty() ? "no OpenSSL error recorded" : text;
}

EgressTls::EgressTls(const std::string& ca_dir, const std::string& upstream_ca_file, Clock clock)
    : clock_(clock ? std::move(clock) : Clock([] { return std::chrono::system_clock::now(); })) {
  const fs::path dir(ca_dir);
  const fs::path key_path = dir / "ca-key.pem";
  const fs::path cert_path = dir / "ca.pem";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw EgressTlsError("Cannot make the egress CA folder " + ca_dir + ": " + ec.message());
  fs::permissions(dir, fs::perms::owner_all, ec);
  if (fs::exists(key_path) && fs::exists(cert_path)) {
    const std::string key_pem = read_file(key_path);
    ca_pem_ = read_file(cert_path);
    BIO* key_in = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(key_in, nullptr, nullptr, nullptr);
    BIO_free(key_in);
    if (key == nullptr) fail("The egress CA key " + key_path.string() + " is not a PEM key");
    ca_key_ = hold_key(key);
    BIO* cert_in = BIO_new_mem_buf(ca_pem_.data(), static_cast<int>(ca_pem_.size()));
    X509* cert = PEM_read_bio_X509(cert_in, nullptr, nullptr, nullptr);
    BIO_free(cert_in);
    if (cert == nullptr) fail("The egress CA certificate " + cert_path.string() + " is not PEM");
    ca_cert_ = hold_cert(cert);
    if (X509_check_private_key(cert, key) != 1) {
      fail("The egress CA key " + key_path.string() + " does not match " + cert_path.string() +
           " (remove both and restart the daemon to make a new CA)");
    }
    ::chmod(key_path.c_str(), 0600);
  } else {
    ca_key_ = hold_key(new_ec_key());
    char host[256] = "host";
    ::gethostname(host, sizeof host - 1);
    X509* cert = new_certificate("kode-gopher egress CA (" + std::string(host) + ")",
                                 key_of(ca_key_), nullptr, clock_(), std::chrono::hours(24 * 3650));
    ca_cert_ = hold_cert(cert);
    add_extension(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_extension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(cert, cert, NID_subject_key_identifier, "hash");
    add_extension(cert, cert, NID_name_constraints, "critical,permitted;DNS:googleapis.com");
    if (X509_sign(cert, key_of(ca_key_), EVP_sha256()) == 0) fail("Cannot sign the egress CA");
    BIO* out = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(out, key_of(ca_key_), nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long size = BIO_get_mem_data(out, &data);
    const std::string key_pem(data, static_cast<std::size_t>(size));
    BIO_free(out);
    ca_pem_ = pem_of(cert);
    write_private(key_path, key_pem, 0600);
    write_private(cert_path, ca_pem_, 0644);
  }
  leaf_key_ = hold_key(new_ec_key());

  upstream_.reset(SSL_CTX_new(TLS_client_method()));
  if (!upstream_) fail("Cannot make the upstream TLS context");
  SSL_CTX_set_min_proto_version(upstream_.get(), TLS1_2_VERSION);
  SSL_CTX_set_options(upstream_.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_verify(upstream_.get(), SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_set_default_verify_paths(upstream_.get()) != 1) {
    fail("Cannot load the system's CA certificates");
  }
  if (!upstream_ca_file.empty() &&
      SSL_CTX_load_verify_locations(upstream_.get(), upstream_ca_file.c_str(), nullptr) != 1) {
    fail("Cannot load [sandbox] egress_upstream_ca_file " + upstream_ca_file);
  }
}

std::string EgressTls::trust_bundle_pem() const {
  std::string bundle;
  std::error_code ec;
  if (fs::exists(kSystemBundle, ec)) bundle = read_file(kSystemBundle);
  if (!bundle.empty() && bundle.back() != '\n') bundle += '\n';
  return bundle + ca_pem_;
}

std::size_t EgressTls::cached_leaves() {
  const std::lock_guard lock(leaves_mutex_);
  return leaves_.size();
}

void EgressTls::make_room(std::chrono::system_clock::time_point now) {
  std::erase_if(leaves_, [&](const auto& entry) {
    return entry.second.not_after - now < kLeafRenewBefore;
  });
  while (leaves_.size() >= kMaxLeaves) {
    auto oldest = leaves_.begin();
    for (auto it = leaves_.begin(); it != leaves_.end(); ++it) {
      if (it->second.last_used < oldest->second.last_used) oldest = it;
    }
    leaves_.erase(oldest);
  }
}

SslContextPtr EgressTls::server_context(const std::string& host_name) {
  if (!is_google_api_host(host_name)) {
    throw EgressTlsError("The egress CA vouches only for names under googleapis.com, not " +
                         host_name);
  }
  const auto now = clock_();
  const std::lock_guard lock(leaves_mutex_);
  auto found = leaves_.find(host_name);
  if (found == leaves_.end() || found->second.not_after - now < kLeafRenewBefore) {
    if (found != leaves_.end()) leaves_.erase(found);
    make_room(now);
    X509* cert = new_certificate(host_name, key_of(leaf_key_), cert_of(ca_cert_), now,
                                 std::chrono::duration_cast<std::chrono::seconds>(kLeafLifetime));
    const auto leaf_cert = hold_cert(cert);
    add_extension(cert, cert_of(ca_cert_), NID_subject_alt_name, ("DNS:" + host_name).c_str());
    add_extension(cert, cert_of(ca_cert_), NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert, cert_of(ca_cert_), NID_key_usage, "critical,digitalSignature");
    add_extension(cert, cert_of(ca_cert_), NID_ext_key_usage, "serverAuth");
    add_extension(cert, cert_of(ca_cert_), NID_authority_key_identifier, "keyid:always");
    if (X509_sign(cert, key_of(ca_key_), EVP_sha256()) == 0) fail("Cannot sign a certificate");
    SslContextPtr context(SSL_CTX_new(TLS_server_method()));
    if (!context) fail("Cannot make a TLS context");
    SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
    SSL_CTX_set_options(context.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (SSL_CTX_use_certificate(context.get(), cert) != 1 ||
        SSL_CTX_add1_chain_cert(context.get(), cert_of(ca_cert_)) != 1 ||
        SSL_CTX_use_PrivateKey(context.get(), key_of(leaf_key_)) != 1) {
      fail("Cannot set the certificate for " + host_name);
    }
    SSL_CTX_set_alpn_select_cb(
        context.get(),
        [](SSL*, const unsigned char** out, unsigned char* out_size, const unsigned char* in,
           unsigned int in_size, void*) -> int {
          // h2 first (gRPC needs it; the proxy relays it with nghttp2), then HTTP/1.1.
          static const unsigned char kProtocols[] = {2, 'h', '2', 8, 'h', 't', 't', 'p',
                                                     '/', '1', '.', '1'};
          unsigned char* selected = nullptr;
          if (SSL_select_next_proto(&selected, out_size, kProtocols, sizeof kProtocols, in,
                                    in_size) != OPENSSL_NPN_NEGOTIATED) {
            return SSL_TLSEXT_ERR_NOACK;
          }
          *out = selected;
          return SSL_TLSEXT_ERR_OK;
        },
        nullptr);
    Leaf leaf{std::move(context), now + kLeafLifetime};
    found = leaves_.insert_or_assign(host_name, std::move(leaf)).first;
  }
  found->second.last_used = ++use_count_;
  SSL_CTX_up_ref(found->second.context.get());
  return SslContextPtr(found->second.context.get());
}

}  // namespace kg::sandbox
