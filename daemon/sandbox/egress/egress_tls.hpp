// The TLS the egress proxy terminates for Google API hosts (docs/egress.md, "Sealed
// credentials"): the daemon's own certificate authority, whose private key never leaves the
// daemon's state folder, leaf certificates minted from it per host name on demand (cached,
// short-lived), and the client context the proxy verifies the real upstream with.
//
// The CA is made once per state folder (ca-key.pem mode 0600, ca.pem) and reused by later
// daemons, so a sandbox's trust bundle stays valid across restarts. Its certificate carries a
// name constraint: it can vouch only for names under googleapis.com, so even a stolen key could
// not impersonate another site. Sandboxes trust it through a bundle of the system's roots and
// this certificate (trust_bundle_pem), bound into every allowlist sandbox.
//
// Leaves are kept per name, at most kMaxLeaves: any name under googleapis.com may be asked for,
// so past the cap the least recently used leaf is dropped (an expiring one first).
//
// One per daemon, shared by every sandbox's proxy; thread-safe.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kg::sandbox {

struct SslContextFree {
  void operator()(SSL_CTX* context) const noexcept { SSL_CTX_free(context); }
};
using SslContextPtr = std::unique_ptr<SSL_CTX, SslContextFree>;

// TLS could not be set up; the message names the file or the step and OpenSSL's reason.
class EgressTlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Names the proxy terminates TLS for (when the allowlist admits them): under googleapis.com,
// the suffix the CA's name constraint allows. Case is already folded by net::HostName.
bool is_google_api_host(std::string_view host_name);

// OpenSSL's error queue as one line (and emptied), for messages.
std::string openssl_errors();

class EgressTls {
 public:
  // ca_dir: where the CA lives (made 0700 when missing). upstream_ca_file: PEM certificates
  // trusted for upstream servers beside the system's roots (a corporate TLS proxy's CA); empty:
  // the system's roots only. Throws EgressTlsError.
  // `clock`: the time leaves are minted and renewed by (tests move it; empty: the system's).
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  EgressTls(const std::string& ca_dir, const std::string& upstream_ca_file, Clock clock = {});
  EgressTls(const EgressTls&) = delete;
  EgressTls& operator=(const EgressTls&) = delete;

  // The CA's certificate (PEM), and the system's roots followed by it: what sandboxes trust.
  const std::string& ca_certificate_pem() const noexcept { return ca_pem_; }
  std::string trust_bundle_pem() const;

  // A server context presenting a certificate for `host_name` (a name under googleapis.com,
  // is_google_api_host) signed by the CA (minted on first use, valid for a day, replaced when
  // less than an hour is left), selecting ALPN h2 when the client offers it, else http/1.1.
  // Throws EgressTlsError, also for a name the CA cannot vouch for.
  SslContextPtr server_context(const std::string& host_name);
  // How many leaves are cached (at most kMaxLeaves).
  std::size_t cached_leaves();
  static constexpr std::size_t kMaxLeaves = 256;
  // The client context for upstream connections: peer verification against the system's roots
  // (and upstream_ca_file); the caller sets the host name to check per connection.
  SSL_CTX* upstream_context() const noexcept { return upstream_.get(); }

 private:
  struct Leaf {
    SslContextPtr context;
    std::chrono::system_clock::time_point not_after;
    std::uint64_t last_used = 0;  // use_count_ when last handed out
  };
  // Makes room for one more leaf (leaves_mutex_ held): drops the ones due for renewal, then
  // the least recently used.
  void make_room(std::chrono::system_clock::time_point now);
  Clock clock_;
  std::string ca_pem_;
  std::shared_ptr<void> ca_key_;   // EVP_PKEY
  std::shared_ptr<void> ca_cert_;  // X509
  std::shared_ptr<void> leaf_key_; // EVP_PKEY: one key for every leaf of this daemon
  SslContextPtr upstream_;
  std::mutex leaves_mutex_;
  std::map<std::string, Leaf> leaves_;
  std::uint64_t use_count_ = 0;
};

}  // namespace kg::sandbox
