// The main of the lib/ unit tests (test_json, test_time, test_ini); the tests are in the test_*.cpp files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
