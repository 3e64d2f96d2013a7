// Kubeconfig and in-cluster config: contexts, token, token file, client certificate (data and
// files), exec plugins (real scripts), and the errors that name the file and the field.
#include <doctest/doctest.h>

#include <Poco/Base64Encoder.h>

#include <sstream>

#include "kube_auth.hpp"
#include "kube_config.hpp"
#include "test_support.hpp"

using namespace kg::sandbox;
using kg::test::ScopedEnv;
using kg::test::TempDir;
using kg::test::write_file;

namespace {

std::string base64(const std::string& text) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << text;
  encoder.close();
  return out.str();
}

// Two contexts on two clusters: "dev" (current; token user, namespace team) and "prod" (cert
// user from files, no namespace).
std::string two_context_kubeconfig(const TempDir& dir) {
  write_file(dir / "prod-ca.pem", "-----BEGIN CERTIFICATE-----\nPRODCA\n-----END CERTIFICATE-----\n");
  write_file(dir / "prod-cert.pem", "CERT FROM FILE");
  write_file(dir / "prod-key.pem", "KEY FROM FILE");
  return write_file(dir / "kubeconfig",
                    "apiVersion: v1\n"
                    "kind: Config\n"
                    "current-context: dev\n"
                    "clusters:\n"
                    "- name: dev-cluster\n"
                    "  cluster:\n"
                    "    server: https://127.0.0.1:6443\n"
                    "    certificate-authority-data: " + base64("DEV CA PEM") + "\n"
                    "- name: prod-cluster\n"
                    "  cluster:\n"
                    "    server: https://prod.example:443\n"
                    "    certificate-authority: prod-ca.pem\n"
                    "users:\n"
                    "- name: dev-user\n"
                    "  user:\n"
                    "    token: dev-token\n"
                    "- name: prod-user\n"
                    "  user:\n"
                    "    client-certificate: prod-cert.pem\n"
                    "    client-key: " + (dir / "prod-key.pem") + "\n"
                    "contexts:\n"
                    "- name: dev\n"
                    "  context: {cluster: dev-cluster, user: dev-user, namespace: team}\n"
                    "- name: prod\n"
                    "  context: {cluster: prod-cluster, user: prod-user}\n");
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("the current context: server, CA data, token and namespace") {
  TempDir dir;
  const auto config = load_kubeconfig(two_context_kubeconfig(dir));
  CHECK(config.server == "https://127.0.0.1:6443");
  CHECK(config.ca_pem == "DEV CA PEM");
  CHECK(config.token == "dev-token");
  CHECK(config.namespace_ == "team");
  CHECK(config.client_cert_pem.empty());
  CHECK_FALSE(config.exec.has_value());
  CHECK(config.source == "kubeconfig " + (dir / "kubeconfig") + ", context dev");
  const auto credentials = KubeAuth(config).current();
  CHECK(credentials.bearer_token == "dev-token");
}

TEST_CASE("a named context: CA and client certificate from files, relative to the kubeconfig") {
  TempDir dir;
  const auto config = load_kubeconfig(two_context_kubeconfig(dir), "prod");
  CHECK(config.server == "https://prod.example:443");
  CHECK(config.ca_pem.find("PRODCA") != std::string::npos);
  CHECK(config.client_cert_pem == "CERT FROM FILE");
  CHECK(config.client_key_pem == "KEY FROM FILE");
  CHECK(config.token.empty());
  CHECK(config.namespace_.empty());
}

TEST_CASE("client certificate and key data, insecure-skip-tls-verify") {
  TempDir dir;
  const auto path = write_file(dir / "kc",
                               "current-context: c\n"
                               "clusters: [{name: k, cluster: {server: 'https://10.0.0.1', "
                               "insecure-skip-tls-verify: true}}]\n"
                               "users: [{name: u, user: {client-certificate-data: " + base64("CERT") +
                                   ", client-key-data: " + base64("KEY") + "}}]\n"
                               "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
  const auto config = load_kubeconfig(path);
  CHECK(config.insecure_skip_tls_verify);
  CHECK(config.client_cert_pem == "CERT");
  CHECK(config.client_key_pem == "KEY");
  const auto credentials = KubeAuth(config).current();
  CHECK(credentials.client_cert_pem == "CERT");
  CHECK(credentials.bearer_token.empty());
}

TEST_CASE("errors name the file and the field") {
  TempDir dir;
  const auto path = two_context_kubeconfig(dir);
  CHECK(message_of([&] { load_kubeconfig(path, "staging"); }) ==
        "kubeconfig " + path + ": [kubernetes] context: names context \"staging\", which is not in contexts");
  CHECK(message_of([&] { load_kubeconfig(dir / "nothing-here"); }) ==
        "Cannot read kubeconfig " + (dir / "nothing-here"));

  const auto no_server = write_file(dir / "no-server",
                                    "current-context: c\n"
                                    "clusters: [{name: k, cluster: {certificate-authority-data: eA==}}]\n"
                                    "contexts: [{name: c, context: {cluster: k}}]\n");
  CHECK(message_of([&] { load_kubeconfig(no_server); }) ==
        "kubeconfig " + no_server + ": clusters[k].cluster.server: missing");

  const auto missing_user = write_file(dir / "missing-user",
                                       "current-context: c\n"
                                       "clusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                                       "contexts: [{name: c, context: {cluster: k, user: ghost}}]\n");
  CHECK(message_of([&] { load_kubeconfig(missing_user); }) ==
        "kubeconfig " + missing_user +
            ": contexts[c].context.user: names user \"ghost\", which is not in users");

  const auto no_current = write_file(dir / "no-current", "clusters: []\n");
  CHECK(message_of([&] { load_kubeconfig(no_current); }).find(
            ": current-context: not set: set it (kubectl config use-context) or name a context in "
            "[kubernetes] context") != std::string::npos);

  const auto bad_ca = write_file(dir / "bad-ca",
                                 "current-context: c\n"
                                 "clusters: [{name: k, cluster: {server: 'https://h', "
                                 "certificate-authority: /nonexistent/ca.pem}}]\n"
                                 "contexts: [{name: c, context: {cluster: k}}]\n");
  CHECK(message_of([&] { load_kubeconfig(bad_ca); }) ==
        "kubeconfig " + bad_ca + ": clusters[k].cluster.certificate-authority: Cannot read the file "
        "of /nonexistent/ca.pem");

  const auto not_yaml = write_file(dir / "not-yaml", "clusters: [unclosed\n");
  CHECK(message_of([&] { load_kubeconfig(not_yaml); }).starts_with("kubeconfig " + not_yaml +
                                                                    " is not valid YAML"));

  const auto proxied = write_file(dir / "proxied",
                                  "current-context: c\n"
                                  "clusters: [{name: k, cluster: {server: 'https://h', "
                                  "proxy-url: 'http://proxy:3128'}}]\n"
                                  "contexts: [{name: c, context: {cluster: k}}]\n");
  CHECK(message_of([&] { load_kubeconfig(proxied); }).starts_with(
      "kubeconfig " + proxied + ": clusters[k].cluster.proxy-url: is not supported"));

  const auto half_cert = write_file(dir / "half-cert",
                                    "current-context: c\n"
                                    "clusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                                    "users: [{name: u, user: {client-certificate-data: eA==}}]\n"
                                    "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
  CHECK(message_of([&] { load_kubeconfig(half_cert); }).find("users[u].user: has a client certificate "
                                                              "without a key") != std::string::npos);
}

TEST_CASE("KUBECONFIG's first existing entry, else ~/.kube/config") {
  TempDir dir;
  const auto path = two_context_kubeconfig(dir);
  {
    const ScopedEnv env("KUBECONFIG", dir / "missing" + ":" + path);
    CHECK(default_kubeconfig_path() == path);
    CHECK(resolve_kube_config("", "prod").server == "https://prod.example:443");
  }
  {
    const ScopedEnv env("KUBECONFIG", std::nullopt);
    const ScopedEnv home("HOME", dir.path());
    CHECK(default_kubeconfig_path().empty());
    std::filesystem::create_directories(dir / ".kube");
    std::filesystem::copy_file(path, dir / ".kube/config");
    CHECK(default_kubeconfig_path() == dir / ".kube/config");
  }
  {
    const ScopedEnv env("KUBECONFIG", std::nullopt);
    const ScopedEnv home("HOME", dir / "nowhere");
    const ScopedEnv host("KUBERNETES_SERVICE_HOST", std::nullopt);
    CHECK(message_of([] { resolve_kube_config("", ""); }).starts_with("No Kubernetes configuration"));
  }
}

TEST_CASE("in-cluster: service host and port, the account's CA and namespace, the token re-read") {
  TempDir dir;
  write_file(dir / "token", "first-token\n");
  write_file(dir / "ca.crt", "CLUSTER CA");
  write_file(dir / "namespace", "kode-gopher\n");
  const ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  const ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  const auto config = load_in_cluster_config(dir.path());
  CHECK(config.server == "https://10.96.0.1:443");
  CHECK(config.ca_pem == "CLUSTER CA");
  CHECK(config.namespace_ == "kode-gopher");
  KubeAuth auth(config);
  CHECK(auth.current().bearer_token == "first-token");
  write_file(dir / "token", "rotated-token\n");  // the kubelet rotates it in place
  CHECK(auth.current().bearer_token == "rotated-token");

  const ScopedEnv v6("KUBERNETES_SERVICE_HOST", "fd00::1");
  CHECK(load_in_cluster_config(dir.path()).server == "https://[fd00::1]:443");

  std::filesystem::remove(dir / "token");
  CHECK(message_of([&] { load_in_cluster_config(dir.path()); }).find("does not exist") != std::string::npos);

  const ScopedEnv none("KUBERNETES_SERVICE_HOST", std::nullopt);
  CHECK(message_of([&] { load_in_cluster_config(dir.path()); }).find("KUBERNETES_SERVICE_HOST") !=
        std::string::npos);
}

TEST_CASE("an exec plugin's token, run with its args and env, cached until it expires") {
  TempDir dir;
  // The script counts its runs, echoes what it was given, and prints an ExecCredential whose
  // expiry the test chooses through a file.
  write_file(dir / "plugin.sh",
             "#!/bin/sh\n"
             "echo run >> \"$COUNT_FILE\"\n"
             "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$COUNT_FILE\")/exec-info\"\n"
             "cat <<EOF\n"
             "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
             "\"status\":{\"token\":\"tok-$1-$(wc -l < \"$COUNT_FILE\" | tr -d ' ')\","
             "\"expirationTimestamp\":\"$(cat \"$(dirname \"$COUNT_FILE\")/expiry\")\"}}\n"
             "EOF\n",
             0755);
  write_file(dir / "expiry", "2999-01-01T00:00:00Z");
  const auto path = write_file(dir / "kc",
                               "current-context: c\n"
                               "clusters: [{name: k, cluster: {server: 'https://h:6443'}}]\n"
                               "users:\n"
                               "- name: u\n"
                               "  user:\n"
                               "    exec:\n"
                               "      apiVersion: client.authentication.k8s.io/v1\n"
                               "      command: ./plugin.sh\n"
                               "      args: [alpha]\n"
                               "      env: [{name: COUNT_FILE, value: '" + (dir / "count") + "'}]\n"
                               "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
  const auto config = load_kubeconfig(path);
  REQUIRE(config.exec.has_value());
  CHECK(config.exec->args == std::vector<std::string>{"alpha"});
  KubeAuth auth(config);
  CHECK(auth.current().bearer_token == "tok-alpha-1");
  CHECK(auth.current().bearer_token == "tok-alpha-1");  // cached: it has not expired
  CHECK(kg::test::read_file(dir / "exec-info") ==
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}})");
  auth.forget_cached();  // the server said 401
  CHECK(auth.current().bearer_token == "tok-alpha-2");

  // A credential about to expire is renewed at once.
  write_file(dir / "expiry", "2000-01-01T00:00:00Z");
  auth.forget_cached();
  CHECK(auth.current().bearer_token == "tok-alpha-3");
  CHECK(auth.current().bearer_token == "tok-alpha-4");

  // provideClusterInfo: the plugin also hears the cluster's server and CA.
  write_file(dir / "expiry", "2999-01-01T00:00:00Z");
  std::string text = kg::test::read_file(path);
  text.replace(text.find("      args:"), 0, "      provideClusterInfo: true\n");
  text.replace(text.find("server: 'https://h:6443'"), 24,
               "server: 'https://h:6443', certificate-authority-data: " + base64("CA") + "");
  KubeAuth with_cluster(load_kubeconfig(write_file(dir / "kc-cluster", text)));
  CHECK(with_cluster.current().bearer_token == "tok-alpha-5");
  CHECK(kg::test::read_file(dir / "exec-info") ==
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false,)"
        R"("cluster":{"server":"https://h:6443","certificate-authority-data":")" + base64("CA") + R"("}}})");
}

TEST_CASE("an exec plugin that fails: its status and stderr; bad output: what is wrong") {
  TempDir dir;
  write_file(dir / "fails.sh", "#!/bin/sh\necho 'gcloud: you are not logged in' >&2\nexit 3\n", 0755);
  write_file(dir / "garbage.sh", "#!/bin/sh\necho '{\"kind\":\"Status\"}'\n", 0755);
  write_file(dir / "v1beta1.sh",
             "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
             "\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":\"C\","
             "\"clientKeyData\":\"K\"}}'\n",
             0755);
  auto kubeconfig = [&](const std::string& script, const std::string& version) {
    return write_file(dir / ("kc-" + script),
                      "current-context: c\n"
                      "clusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/" +
                          version + ", command: '" + (dir / script) + "'}}}]\n"
                      "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
  };
  KubeAuth fails(load_kubeconfig(kubeconfig("fails.sh", "v1")));
  const auto failure = message_of([&] { fails.current(); });
  CHECK(failure.find("exited with status 3: gcloud: you are not logged in") != std::string::npos);
  CHECK(failure.find(dir / "fails.sh") != std::string::npos);

  KubeAuth garbage(load_kubeconfig(kubeconfig("garbage.sh", "v1")));
  CHECK(message_of([&] { garbage.current(); }).find("printed kind \"Status\", not ExecCredential") !=
        std::string::npos);

  KubeAuth cert(load_kubeconfig(kubeconfig("v1beta1.sh", "v1beta1")));
  const auto credentials = cert.current();
  CHECK(credentials.client_cert_pem == "C");
  CHECK(credentials.client_key_pem == "K");

  CHECK(message_of([&] { load_kubeconfig(kubeconfig("v1beta1.sh", "v1alpha1")); })
            .find("users[u].user.exec.apiVersion: must be client.authentication.k8s.io/v1 or "
                  "/v1beta1") != std::string::npos);
}

TEST_CASE("ExecCredential parsing: token, certificate, expiry") {
  const auto credential = parse_exec_credential(
      R"({"kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      "plugin");
  CHECK(credential.token == "t");
  REQUIRE(credential.expires.has_value());
  CHECK(credential.expires->time_since_epoch().count() == 1893553445);
  CHECK_THROWS_WITH_AS(parse_exec_credential(R"({"kind":"ExecCredential","status":{}})", "p"),
                       doctest::Contains("neither status.token nor status.clientCertificateData"),
                       KubeConfigError);
  CHECK_THROWS_WITH_AS(
      parse_exec_credential(
          R"({"kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"tomorrow"}})", "p"),
      doctest::Contains("not RFC 3339"), KubeConfigError);
}
