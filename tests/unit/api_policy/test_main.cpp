// The test_api_policy executable's main; the tests are in the other test_*.cpp files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
