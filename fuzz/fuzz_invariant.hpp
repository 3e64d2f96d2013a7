// What every fuzz target uses to state an invariant: when it does not hold, the input is a bug,
// so the process aborts with the reason — libFuzzer saves the input as a crash reproducer, and
// the fuzz-replay tests (fuzz/replay_main.cpp) fail on it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kg::fuzz {

[[noreturn]] inline void invariant_broken(const char* condition, const std::string& detail,
                                          const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n  %s\n", file, line, condition,
               detail.c_str());
  std::abort();
}

}  // namespace kg::fuzz

// `detail` is evaluated only when `condition` is false.
#define KG_FUZZ_CHECK(condition, detail)                                          \
  do {                                                                            \
    if (!(condition)) ::kg::fuzz::invariant_broken(#condition, (detail), __FILE__, __LINE__); \
  } while (false)
