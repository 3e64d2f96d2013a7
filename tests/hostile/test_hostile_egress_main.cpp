// The hostile egress suite's main: prewarms the shared Go build cache first (it needs the Go
// module proxy, which the test's network does not reach; the suite must not depend on another
// suite having done it), then makes the network namespaces and files of egress_world.hpp while
// the process still has one thread, then doctest runs the tests.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <unistd.h>

#include <exception>
#include <iostream>

#include "daemon_fixture.hpp"
#include "egress_world.hpp"

int main(int argc, char** argv) {
  if (::geteuid() == 0) {  // otherwise make_world() skips the suite below: nothing to prewarm for
    try {
      kg::test::prewarm_shared_caches();
    } catch (const std::exception& e) {
      std::cerr << "hostile egress tests: the Go build cache could not be prewarmed: " << e.what()
                << std::endl;
      return 1;
    }
  }
  try {
    kg::test::egress::make_world();
  } catch (const std::exception& e) {
    std::cerr << "hostile egress tests: the test network could not be made: " << e.what()
              << std::endl;
    return 1;
  }
  const auto& world = kg::test::egress::world();
  if (!world.skip_reason.empty()) {
    std::cerr << "hostile egress tests not run: " << world.skip_reason << std::endl;
    return 77;  // meson: skipped
  }
  doctest::Context context(argc, argv);
  return context.run();
}
