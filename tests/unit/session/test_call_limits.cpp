#include <doctest/doctest.h>

#include "call_limits.hpp"

using namespace kg;

TEST_CASE("a call without limits gets the daemon's, for the build and the run alike") {
  config::LimitsConfig daemon;
  const auto build = session::resource_limits(daemon);
  const auto run = session::run_limits(daemon, {});
  CHECK(build.memory_bytes == daemon.memory_bytes);
  CHECK(run.memory_bytes == daemon.memory_bytes);
  CHECK(run.pids == daemon.pids);
  CHECK(run.cpu_seconds == daemon.cpu_seconds);
  CHECK(run.file_size_bytes == daemon.file_size_bytes);
  CHECK(run.open_files == daemon.open_files);
  CHECK(session::output_limit(daemon, {}) == daemon.output_bytes);
}

TEST_CASE("a call may lower each limit") {
  config::LimitsConfig daemon;
  session::RequestedLimits asked;
  asked.memory_bytes = 256ull << 20;
  asked.pids = 32;
  asked.cpu_seconds = 2;
  asked.file_size_bytes = 1 << 20;
  asked.open_files = 64;
  asked.output_bytes = 4096;
  const auto run = session::run_limits(daemon, asked);
  CHECK(run.memory_bytes == 256ull << 20);
  CHECK(run.pids == 32);
  CHECK(run.cpu_seconds == 2);
  CHECK(run.file_size_bytes == 1 << 20);
  CHECK(run.open_files == 64);
  CHECK(session::output_limit(daemon, asked) == 4096);
}

TEST_CASE("a call may not raise a limit or set it to 0; the error names the daemon's maximum") {
  config::LimitsConfig daemon;
  daemon.memory_bytes = 1ull << 30;
  session::RequestedLimits asked;
  asked.memory_bytes = 2ull << 30;
  CHECK_THROWS_WITH_AS(session::run_limits(daemon, asked),
                       "limits.memory_bytes must be from 1 to 1073741824 (the daemon's "
                       "limits.memory_bytes), got 2147483648",
                       plugin::InvalidInputError);
  session::RequestedLimits zero;
  zero.pids = 0;
  CHECK_THROWS_AS(session::run_limits(daemon, zero), plugin::InvalidInputError);
  session::RequestedLimits loud;
  loud.output_bytes = daemon.output_bytes + 1;
  CHECK_THROWS_AS(session::output_limit(daemon, loud), plugin::InvalidInputError);
}
