// What the kubernetes provider says at daemon start when it cannot be used, and its defaults.
// (The claim lifecycle itself runs against a real API server in the k8s suite.)
#include <doctest/doctest.h>

#include "error_chain.hpp"
#include "default_daemon_id.hpp"
#include "kube_client.hpp"
#include "kubernetes_sandbox_provider.hpp"
#include "test_support.hpp"
#include "../../support/test_loggers.hpp"

using namespace kg::sandbox;
using kg::test::TempDir;
using kg::test::write_file;

namespace {

std::string start_error(const KubernetesProviderOptions& options) {
  kg::test::RecordingLogger logger;
  try {
    KubernetesSandboxProvider provider(options, logger);
  } catch (const std::exception& e) {
    return kg::describe_error_chain(e);
  }
  return "(started)";
}

}  // namespace

TEST_CASE("a kubeconfig that cannot be read fails the start, saying what to fix") {
  TempDir dir;
  KubernetesProviderOptions options;
  options.kubeconfig = dir / "missing";
  options.daemon_id = "d";
  CHECK(start_error(options) ==
        "Cannot use Kubernetes ([sandbox] provider = kubernetes): fix the [kubernetes] section or "
        "the kubeconfig it names: Cannot read kubeconfig " + (dir / "missing"));
}

TEST_CASE("a daemon id that is no label value fails the start") {
  TempDir dir;
  std::uint16_t port = 0;
  {
    kg::test::LoopbackHttpServer gone([](const kg::test::SeenRequest&, int) { return kg::test::Answer{}; });
    port = gone.port();
  }
  KubernetesProviderOptions options;
  options.kubeconfig = write_file(dir / "kc",
                                  "current-context: c\n"
                                  "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:" +
                                      std::to_string(port) + "'}}]\n"
                                  "contexts: [{name: c, context: {cluster: k}}]\n");
  options.daemon_id = "Not_A_Label";
  CHECK(start_error(options).starts_with("[kubernetes] daemon_id \"Not_A_Label\" is not a DNS-1123 label"));

  // An API server that is down does not stop the daemon: the isolation is then unknown.
  options.daemon_id = "team";
  kg::test::RecordingLogger logger;
  KubernetesSandboxProvider provider(options, logger);
  CHECK(provider.kube_namespace() == "default");
  CHECK(provider.isolation_summary().at(1).find("is unknown") != std::string::npos);
  CHECK(provider.reap_orphans() == 0);
  CHECK(logger.lines().back().find("cannot list this daemon's claims") != std::string::npos);
}

TEST_CASE("the default daemon id: the host name and a suffix made once per state dir") {
  kg::test::TempDir first_dir, second_dir;
  const std::string id = default_daemon_id(first_dir.path());
  CHECK(id.size() <= 63);
  CHECK(is_dns1123_name(id));
  CHECK(id.find('.') == std::string::npos);
  CHECK(id.starts_with(host_name_label(54) + "-"));
  CHECK(id.size() == host_name_label(54).size() + 9);
  // A restart finds the same id (so it reaps what it left); another state dir, as on another
  // machine of the same name, gets its own.
  CHECK(default_daemon_id(first_dir.path()) == id);
  CHECK(kg::test::read_file(first_dir / "kubernetes-daemon-id") == id + "\n");
  CHECK(default_daemon_id(second_dir.path()) != id);
  // A file that does not hold a valid id is replaced.
  kg::test::write_file(first_dir / "kubernetes-daemon-id", "Not A Label!\n");
  const std::string replaced = default_daemon_id(first_dir.path());
  CHECK(is_dns1123_name(replaced));
  CHECK(replaced != id);
  CHECK_THROWS_WITH(default_daemon_id("/nonexistent/state"),
                    doctest::Contains("the default of [kubernetes] daemon_id"));
}
