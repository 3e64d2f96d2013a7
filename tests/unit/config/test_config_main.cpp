// The test_config executable's main; the tests are in the other test_config_*.cpp files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
