// The hostile egress suite's main: the network namespaces and files of egress_world.hpp are
// made here, while the process still has one thread, then doctest runs the tests.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <exception>
#include <iostream>

#include "egress_world.hpp"

int main(int argc, char** argv) {
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
