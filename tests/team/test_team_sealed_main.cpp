// The team-sealed test's main: installs the team suite's Node clients and OpenID provider (npm
// ci, which needs the registry, so before the test leaves the host's network) and prewarms the
// shared Go build cache (which needs the module proxy), then makes the
// hostile egress suite's network namespaces and files (tests/hostile/egress_world.hpp) while the
// process still has one thread, then runs doctest.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <exception>
#include <iostream>

#include "client_runner.hpp"
#include "daemon_fixture.hpp"
#include "egress_world.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  // install_node_package asserts with doctest; outside a test case a failed one ends here.
  context.setAsDefaultForAssertsOutOfTestCases();
  context.setAssertHandler([](const doctest::AssertData& data) {
    std::cerr << "team-sealed: installing the Node packages failed (" << data.m_file << ":"
              << data.m_line << ": " << data.m_expr << "; its npm output is above)" << std::endl;
    std::exit(1);
  });
  kg::test::install_node_package(kg::test::required_env("KG_TEAM_NODE_DIR"));
  kg::test::install_node_package(kg::test::required_env("KG_TEAM_OIDC_DIR"));
  try {
    // The shared Go caches need the module proxy, which the test's network does not reach.
    kg::test::prewarm_shared_caches();
  } catch (const std::exception& e) {
    std::cerr << "team-sealed: the Go build cache could not be prewarmed: " << e.what() << std::endl;
    return 1;
  }
  try {
    kg::test::egress::make_world();
  } catch (const std::exception& e) {
    std::cerr << "team-sealed: the test network could not be made: " << e.what() << std::endl;
    return 1;
  }
  const auto& world = kg::test::egress::world();
  if (!world.skip_reason.empty()) {
    std::cerr << "team-sealed not run: " << world.skip_reason << std::endl;
    return 77;  // meson: skipped
  }
  return context.run();
}
