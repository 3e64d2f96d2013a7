// The Kubernetes REST client against real servers on loopback: plain HTTP (kubectl proxy's
// way) for the verbs, headers and Status errors; HTTPS with a CA, server and client
// certificates made by openssl for this test, for the TLS checks (CA, the server's IP, client
// certificate from memory).
#include <doctest/doctest.h>

#include <Poco/Net/SSLManager.h>

#include <cstdlib>

#include "kube_client.hpp"
#include "test_support.hpp"

using namespace kg::sandbox;
using kg::test::Answer;
using kg::test::LoopbackHttpServer;
using kg::test::SeenRequest;
using kg::test::TempDir;

namespace {

KubeConfig plain_config(std::uint16_t port) {
  KubeConfig config;
  config.source = "test";
  config.server = "http://127.0.0.1:" + std::to_string(port);
  config.token = "sekret";
  return config;
}

// A CA, a server certificate for `server_ip` and a client certificate, all signed by the CA.
struct TestPki {
  TempDir dir;
  explicit TestPki(const std::string& server_ip) {
    const std::string d = dir.path();
    const std::string script =
        "set -e; cd '" + d + "'\n"
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -subj /CN=test-ca "
        "-days 1 2>/dev/null\n"
        "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=apiserver 2>/dev/null\n"
        "printf 'subjectAltName=IP:" + server_ip + "\\n' > server.ext\n"
        "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt "
        "-days 1 -extfile server.ext 2>/dev/null\n"
        "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr "
        "-subj /CN=kode-gopher/O=tests 2>/dev/null\n"
        "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt "
        "-days 1 2>/dev/null\n"
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.crt "
        "-subj /CN=other-ca -days 1 2>/dev/null\n";
    REQUIRE(std::system(script.c_str()) == 0);
  }
  std::string file(const std::string& name) const { return kg::test::read_file(dir / name); }
  // The API server's TLS: requires a client certificate when `require_client_cert`.
  Poco::Net::Context::Ptr server_context(bool require_client_cert) const {
    Poco::Net::Context::Params params;
    params.privateKeyFile = dir / "server.key";
    params.certificateFile = dir / "server.crt";
    params.caLocation = dir / "ca.crt";
    params.verificationMode =
        require_client_cert ? Poco::Net::Context::VERIFY_STRICT : Poco::Net::Context::VERIFY_NONE;
    Poco::Net::Context::Ptr context = new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, params);
    // (Poco would otherwise match the client certificate's name against the client's address.)
    context->enableExtendedCertificateVerification(false);
    return context;
  }
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("the verbs: GET, POST, merge-PATCH and DELETE with the bearer token") {
  LoopbackHttpServer server([](const SeenRequest& r, int) {
    return Answer{r.method == "POST" ? 201 : 200, R"({"kind":"SandboxClaim","metadata":{"name":"c1"}})"};
  });
  KubeClient client(plain_config(server.port()), std::chrono::seconds(5));
  CHECK(client.get("/apis/x/v1/namespaces/ns/things/a").find("c1") != std::string::npos);
  client.post("/apis/x/v1/namespaces/ns/things", R"({"a":1})");
  client.merge_patch("/apis/x/v1/namespaces/ns/things/a", R"({"spec":{}})");
  client.remove("/apis/x/v1/namespaces/ns/things/a");
  const auto seen = server.seen();
  REQUIRE(seen.size() == 4);
  CHECK(seen[0].method == "GET");
  CHECK(seen[0].authorization == "Bearer sekret");
  CHECK(seen[1].method == "POST");
  CHECK(seen[1].content_type == "application/json");
  CHECK(seen[1].body == R"({"a":1})");
  CHECK(seen[2].method == "PATCH");
  CHECK(seen[2].content_type == "application/merge-patch+json");
  CHECK(seen[2].body == R"({"spec":{}})");
  CHECK(seen[3].method == "DELETE");
  CHECK(seen[3].uri == "/apis/x/v1/namespaces/ns/things/a");
}

TEST_CASE("the server's Status errors carry the code, reason and message") {
  LoopbackHttpServer server([](const SeenRequest&, int) {
    return Answer{403, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
        "message":"sandboxclaims.extensions.agents.x-k8s.io is forbidden: User \"dev\" cannot create resource",
        "reason":"Forbidden","code":403})"};
  });
  KubeClient client(plain_config(server.port()), std::chrono::seconds(5));
  try {
    client.post("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/ns/sandboxclaims?x=1", "{}");
    FAIL("no error");
  } catch (const KubeApiError& e) {
    CHECK(e.status() == 403);
    CHECK(e.reason() == "Forbidden");
    CHECK(std::string(e.what()) ==
          "The Kubernetes API server answered POST /apis/extensions.agents.x-k8s.io/v1beta1/"
          "namespaces/ns/sandboxclaims with 403 Forbidden: sandboxclaims.extensions.agents.x-k8s.io "
          "is forbidden: User \"dev\" cannot create resource");
  }
}

TEST_CASE("a server that is not there is a transport error naming it") {
  std::uint16_t port = 0;
  {
    LoopbackHttpServer gone([](const SeenRequest&, int) { return Answer{}; });
    port = gone.port();
  }
  KubeClient client(plain_config(port), std::chrono::seconds(2));
  CHECK_THROWS_AS(client.get("/api"), KubeTransportError);
  CHECK(message_of([&] { client.get("/api"); })
            .starts_with("Cannot reach the API server http://127.0.0.1:" + std::to_string(port)));
}

TEST_CASE("HTTPS: the cluster CA and the server's IP are checked; a client certificate from memory") {
  const TestPki pki("127.0.0.1");
  LoopbackHttpServer server([](const SeenRequest&, int) { return Answer{200, R"({"kind":"APIVersions"})"}; },
                            pki.server_context(true));
  KubeConfig config;
  config.source = "test kubeconfig";
  config.server = "https://127.0.0.1:" + std::to_string(server.port());
  config.ca_pem = pki.file("ca.crt");
  config.client_cert_pem = pki.file("client.crt");
  config.client_key_pem = pki.file("client.key");
  {
    KubeClient client(config, std::chrono::seconds(5));
    CHECK(client.get("/api") == R"({"kind":"APIVersions"})");
  }
  {
    KubeConfig token_only = config;  // the server's certificate checked, no client certificate
    token_only.client_cert_pem.clear();
    token_only.client_key_pem.clear();
    token_only.token = "t";
    LoopbackHttpServer relaxed([](const SeenRequest& r, int) { return Answer{200, r.authorization}; },
                               pki.server_context(false));
    token_only.server = "https://127.0.0.1:" + std::to_string(relaxed.port());
    KubeClient client(token_only, std::chrono::seconds(5));
    CHECK(client.get("/api") == "Bearer t");
  }
  {
    KubeConfig other_ca = config;  // a server the kubeconfig's CA did not sign
    other_ca.ca_pem = pki.file("other-ca.crt");
    KubeClient client(other_ca, std::chrono::seconds(5));
    CHECK(message_of([&] { client.get("/api"); }).find("TLS with the API server") != std::string::npos);
  }
  {
    KubeConfig no_cert = config;  // the server requires one
    no_cert.client_cert_pem.clear();
    no_cert.client_key_pem.clear();
    KubeClient client(no_cert, std::chrono::seconds(5));
    CHECK_THROWS_AS(client.get("/api"), KubeTransportError);
  }
  {
    KubeConfig insecure = config;  // insecure-skip-tls-verify: any server certificate
    insecure.ca_pem = pki.file("other-ca.crt");
    insecure.insecure_skip_tls_verify = true;
    KubeClient client(insecure, std::chrono::seconds(5));
    CHECK(client.get("/api") == R"({"kind":"APIVersions"})");
  }
}

TEST_CASE("HTTPS: a certificate for another address is refused") {
  const TestPki pki("127.0.0.2");
  LoopbackHttpServer server([](const SeenRequest&, int) { return Answer{200, "{}"}; },
                            pki.server_context(false));
  KubeConfig config;
  config.source = "test kubeconfig";
  config.server = "https://127.0.0.1:" + std::to_string(server.port());
  config.ca_pem = pki.file("ca.crt");
  config.token = "t";
  KubeClient client(config, std::chrono::seconds(5));
  CHECK(message_of([&] { client.get("/api"); }).find("TLS with the API server") != std::string::npos);
}

TEST_CASE("unusable TLS material fails when the client is made, naming its source") {
  KubeConfig config;
  config.source = "kubeconfig /k, context c";
  config.server = "https://127.0.0.1:1";
  config.ca_pem = "not a certificate";
  CHECK(message_of([&] { KubeClient(config, std::chrono::seconds(1)); }) ==
        "The cluster's certificate authority (kubeconfig /k, context c) holds no PEM certificate");
  config.ca_pem.clear();
  config.client_cert_pem = "junk";
  config.client_key_pem = "junk";
  CHECK(message_of([&] { KubeClient(config, std::chrono::seconds(1)); })
            .starts_with("The client certificate (kubeconfig /k, context c) cannot be used"));
  config.server = "ftp://x";
  CHECK(message_of([&] { KubeClient(config, std::chrono::seconds(1)); }).find("must be https:// or http://") !=
        std::string::npos);
}
