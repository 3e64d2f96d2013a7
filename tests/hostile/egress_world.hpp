// The network the hostile egress tests run the daemon in, made by this test process before any
// thread starts (tests/unit/egress_network/test_network.hpp's TestNetwork: a network and mount
// namespace of the test's own, a veth pair to an "internet" namespace at 198.51.100.1 that also
// holds private and metadata addresses), plus what this suite needs on top:
//   - its own /etc/hosts (bind-mounted in the test's mount namespace), so the daemon's egress
//     proxy resolves test names through the real system resolver — including names that point
//     at loopback, private, metadata and the host's own addresses (the DNS trick);
//   - fake-gcs-server (built by scripts/setup.sh) serving a bucket on 198.51.100.1: plain HTTP
//     on port 4443 (the JSON API, for STORAGE_EMULATOR_HOST), and HTTPS on port 443 with a
//     certificate for gcs.kg-test.example made here (the JSON API over HTTP/1.1, and gRPC over
//     HTTP/2), the real peer for storage code in a sandbox. The test /etc/hosts also points
//     storage.googleapis.com there, and the certificate names it too, so code using the real
//     API name and the default allowlist reaches the fake (trusting its certificate is the
//     only test-specific step);
//   - pubsub.googleapis.com → 203.0.113.10 (an address of its own on the "internet" side, so a
//     test's Pub/Sub peer can have port 443: tests/hostile/pubsub_peer.hpp); the certificate
//     names it too.
// Needs root (namespaces, veth): main() skips the suite with a message otherwise. Tests only.
#pragma once

#include <string>

#include "recording_tls_peer.hpp"

namespace kg::test::egress {

inline constexpr const char* kStorageHost = "gcs.kg-test.example";  // → 198.51.100.1 (listed)
inline constexpr const char* kUnlistedHost = "unlisted.kg-test.example";  // → 198.51.100.1
inline constexpr const char* kLoopbackHost = "loopback.kg-test.example";  // → 127.0.0.1
inline constexpr const char* kPrivateHost = "private.kg-test.example";    // → 10.1.2.3
inline constexpr const char* kMetadataHost = "metadata.kg-test.example";  // → 169.254.169.254
inline constexpr const char* kHostSelfHost = "self.kg-test.example";      // → 198.51.100.2
inline constexpr const char* kMixedHost = "mixed.kg-test.example";  // → 198.51.100.1 and 10.1.2.3
inline constexpr int kStoragePort = 4443;     // http
inline constexpr int kStorageTlsPort = 443;   // https and gRPC
inline constexpr const char* kBucket = "kg-bucket";
inline constexpr const char* kObject = "hello.txt";
inline constexpr const char* kObjectText = "hello from fake-gcs-server";
inline constexpr const char* kPubsubName = "pubsub.googleapis.com";
inline constexpr const char* kPubsubAddress = "203.0.113.10";  // public-looking (TEST-NET-3)

struct EgressWorld {
  int host_service_port = 0;   // a TCP listener on the host's 127.0.0.1 (must stay untouched)
  int host_service_fd = -1;
  int internet_port = 0;       // a TCP listener on every "internet" address, 10.1.2.3 included
  int internet_fd = -1;
  std::string certificate_pem;  // the HTTPS peer's self-signed certificate
  std::string skip_reason;     // non-empty: the suite cannot run here (not root)
};

// Made once by main() before doctest runs (throws std::runtime_error when it cannot be made);
// tests read it.
EgressWorld& world();
void make_world();

// The "internet" listener with the world's certificate (it names storage.googleapis.com), for a
// test's own stand-in for a Google API host (tests/support/recording_tls_peer.hpp).
TlsListener internet_listener();

}  // namespace kg::test::egress
