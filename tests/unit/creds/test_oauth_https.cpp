// OAuthHttpClient over HTTPS refuses a peer whose certificate no CA in the system store signed:
// a token endpoint cannot be impersonated by whoever answers on its address.
#include <doctest/doctest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SecureServerSocket.h>

#include <atomic>
#include <cstdio>
#include <fstream>

#include "../../support/temp_dir.hpp"
#include "credentials_plugin.hpp"
#include "oauth_http_client.hpp"

namespace {

// A self-signed certificate for 127.0.0.1, written as PEM files.
void write_self_signed(const std::string& key_path, const std::string& cert_path) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  REQUIRE(key != nullptr);
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  REQUIRE(X509_sign(cert, key, EVP_sha256()) > 0);
  FILE* k = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(k);
  FILE* c = std::fopen(cert_path.c_str(), "w");
  PEM_write_X509(c, cert);
  std::fclose(c);
  X509_free(cert);
  EVP_PKEY_free(key);
}

class Answer final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Answer(std::atomic<int>& served) : served_(served) {}
  void handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) override {
    ++served_;
    response.setContentType("application/json");
    response.send() << R"({"access_token":"stolen","expires_in":3600})";
  }

 private:
  std::atomic<int>& served_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(std::atomic<int>& served) : served_(served) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
    return new Answer(served_);
  }

 private:
  std::atomic<int>& served_;
};

}  // namespace

TEST_CASE("an HTTPS endpoint with a certificate no trusted CA signed is refused before any request") {
  kg::test::TempDir dir("kg-creds-tls-");
  write_self_signed(dir / "key.pem", dir / "cert.pem");
  Poco::Net::initializeSSL();
  Poco::Net::Context::Ptr server_tls = new Poco::Net::Context(
      Poco::Net::Context::TLS_SERVER_USE, dir / "key.pem", dir / "cert.pem", "",
      Poco::Net::Context::VERIFY_NONE);
  Poco::Net::SecureServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0), 16, server_tls);
  std::atomic<int> served{0};
  Poco::Net::HTTPServer server(new Factory(served), socket, new Poco::Net::HTTPServerParams);
  server.start();

  kg::google_oauth::OAuthHttpClient client(std::chrono::milliseconds(5000));
  kg::google_oauth::HttpCall call;
  call.method = "POST";
  call.url = "https://127.0.0.1:" + std::to_string(socket.address().port()) + "/token";
  call.what = "Refreshing the user's access token";
  call.body = "grant_type=refresh_token";
  call.content_type = "application/x-www-form-urlencoded";
  try {
    client.send(call);
    FAIL("the self-signed endpoint was trusted");
  } catch (const kg::plugin::CredentialsError& e) {
    const std::string message = e.what();
    CHECK(message.find("Refreshing the user's access token: cannot reach " + call.url + ": ") == 0);
    CHECK_MESSAGE(message.find("certificate") != std::string::npos, message);
  }
  CHECK(served == 0);
  server.stopAll(true);
}
