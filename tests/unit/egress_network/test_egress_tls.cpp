// The egress proxy's CA and leaf certificates (egress_tls.hpp): the CA vouches only for names
// under googleapis.com, a leaf is minted once per name and reused, the cache of leaves stays
// within its cap however many names are asked for, and a leaf due for renewal is replaced.
#include <doctest/doctest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "egress_tls.hpp"

namespace kg::sandbox {
namespace {

namespace fs = std::filesystem;
using std::chrono::system_clock;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::random_device random;
    path = fs::temp_directory_path() / ("kg-egress-tls-" + std::to_string(random()));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

// A clock the test moves.
struct TestClock {
  system_clock::time_point now = system_clock::now();
  EgressTls::Clock function() {
    return [this] { return now; };
  }
};

X509* leaf_of(const SslContextPtr& context) { return SSL_CTX_get0_certificate(context.get()); }

X509* read_certificate(const std::string& pem) {
  BIO* in = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(in, nullptr, nullptr, nullptr);
  BIO_free(in);
  return cert;
}

// Whether `leaf` verifies against `ca_pem` alone for `host` at `at`: the chain, and then the
// CA's name constraint, as a client checks them.
bool verifies(const std::string& ca_pem, X509* leaf, const std::string& host,
              system_clock::time_point at) {
  X509* ca = read_certificate(ca_pem);
  REQUIRE(ca != nullptr);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* context = X509_STORE_CTX_new();
  X509_STORE_CTX_init(context, store, leaf, nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(context);
  X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  X509_VERIFY_PARAM_set_time(param, system_clock::to_time_t(at));
  const bool ok = X509_verify_cert(context) == 1;
  X509_STORE_CTX_free(context);
  X509_STORE_free(store);
  X509_free(ca);
  return ok;
}

}  // namespace

TEST_CASE("egress TLS: the CA vouches only for names under googleapis.com") {
  ScratchDir scratch;
  EgressTls tls((scratch.path / "ca").string(), "");
  const auto leaf = tls.server_context("storage.googleapis.com");
  CHECK(verifies(tls.ca_certificate_pem(), leaf_of(leaf), "storage.googleapis.com", system_clock::now()));
  CHECK_FALSE(verifies(tls.ca_certificate_pem(), leaf_of(leaf), "example.com", system_clock::now()));
  // The proxy asks for no other name, and the CA's name constraint would void one if it did.
  CHECK_THROWS_AS(tls.server_context("example.com"), EgressTlsError);
  CHECK_THROWS_AS(tls.server_context("googleapis.com.evil.example"), EgressTlsError);
  X509* ca = read_certificate(tls.ca_certificate_pem());
  REQUIRE(ca != nullptr);
  int critical = 0;
  auto* constraints = static_cast<NAME_CONSTRAINTS*>(
      X509_get_ext_d2i(ca, NID_name_constraints, &critical, nullptr));
  REQUIRE(constraints != nullptr);
  CHECK(critical == 1);
  REQUIRE(sk_GENERAL_SUBTREE_num(constraints->permittedSubtrees) == 1);
  const GENERAL_NAME* permitted = sk_GENERAL_SUBTREE_value(constraints->permittedSubtrees, 0)->base;
  REQUIRE(permitted->type == GEN_DNS);
  const ASN1_IA5STRING* dns = permitted->d.dNSName;
  CHECK(std::string(reinterpret_cast<const char*>(dns->data), static_cast<std::size_t>(dns->length)) ==
        "googleapis.com");
  NAME_CONSTRAINTS_free(constraints);
  X509_free(ca);
}

TEST_CASE("egress TLS: a leaf is reused, and replaced once it is due for renewal") {
  ScratchDir scratch;
  TestClock clock;
  EgressTls tls((scratch.path / "ca").string(), "", clock.function());
  const auto first = tls.server_context("storage.googleapis.com");
  const auto again = tls.server_context("storage.googleapis.com");
  CHECK(first.get() == again.get());
  CHECK(tls.cached_leaves() == 1);
  // 22 hours on: more than an hour left, still the same leaf.
  clock.now += std::chrono::hours(22);
  CHECK(tls.server_context("storage.googleapis.com").get() == first.get());
  // 23.5 hours on: less than an hour left, a new leaf valid from the clock's time.
  clock.now += std::chrono::minutes(90);
  const auto renewed = tls.server_context("storage.googleapis.com");
  CHECK(renewed.get() != first.get());
  CHECK(tls.cached_leaves() == 1);
  CHECK(verifies(tls.ca_certificate_pem(), leaf_of(renewed), "storage.googleapis.com",
                 clock.now + std::chrono::hours(20)));
  CHECK_FALSE(verifies(tls.ca_certificate_pem(), leaf_of(first), "storage.googleapis.com",
                       clock.now + std::chrono::hours(20)));
}

TEST_CASE("egress TLS: the leaf cache holds at most kMaxLeaves, dropping the least recently used") {
  ScratchDir scratch;
  TestClock clock;
  EgressTls tls((scratch.path / "ca").string(), "", clock.function());
  std::vector<SslContextPtr> held;  // held, so no freed context's address is reused
  const auto name = [](std::size_t i) { return "n" + std::to_string(i) + ".googleapis.com"; };
  for (std::size_t i = 0; i < EgressTls::kMaxLeaves; ++i) held.push_back(tls.server_context(name(i)));
  CHECK(tls.cached_leaves() == EgressTls::kMaxLeaves);
  // n0 used again: n1 is now the least recently used.
  CHECK(tls.server_context(name(0)).get() == held[0].get());
  held.push_back(tls.server_context("one-more.googleapis.com"));
  CHECK(tls.cached_leaves() == EgressTls::kMaxLeaves);
  CHECK(tls.server_context(name(0)).get() == held[0].get());
  CHECK(tls.server_context(name(2)).get() == held[2].get());
  const auto n1 = tls.server_context(name(1));  // minted anew (dropping another)
  CHECK(n1.get() != held[1].get());
  CHECK(tls.cached_leaves() == EgressTls::kMaxLeaves);
  // Leaves due for renewal go first: a day on, every one of them.
  clock.now += std::chrono::hours(24);
  held.push_back(tls.server_context("late.googleapis.com"));
  CHECK(tls.cached_leaves() == 1);
}

}  // namespace kg::sandbox
