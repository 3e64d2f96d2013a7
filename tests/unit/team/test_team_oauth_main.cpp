// The test_team_oauth executable's main; the tests are in the other test_*.cpp files here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
