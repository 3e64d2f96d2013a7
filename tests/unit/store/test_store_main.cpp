// The test_store executable's main; the tests are in the other test_store_*.cpp files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
