// execute_go_code's description states the daemon's [limits] (GET /v1/plugins "limits"), and
// without the daemon's answer the config's defaults, said to be defaults: mcp/ does not link
// config/, so this holds the numbers it states to config's LimitsConfig.
#include <doctest/doctest.h>

#include <string>

#include "daemon_config.hpp"
#include "offered_runtimes.hpp"
#include "tool_descriptions.hpp"

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("without the daemon's limits the description states config's defaults as such") {
  const kg::config::LimitsConfig defaults;
  REQUIRE(defaults.run_timeout_ms % 1000 == 0);
  REQUIRE(defaults.build_timeout_ms % 1000 == 0);
  REQUIRE(defaults.output_bytes % (1u << 20) == 0);
  for (const auto& offered : {std::optional<kg::mcp::OfferedRuntimes>(),
                              std::optional<kg::mcp::OfferedRuntimes>(kg::mcp::OfferedRuntimes{})}) {
    const std::string description = kg::mcp::execute_go_code_description(offered);
    CAPTURE(description);
    CHECK(contains(description, "wall-clock limit (" +
                                    std::to_string(defaults.run_timeout_ms / 1000) +
                                    " s unless the operator set another; the build has its own, " +
                                    std::to_string(defaults.build_timeout_ms / 1000) +
                                    " s by default)"));
    CHECK(contains(description, "maximum (" + std::to_string(defaults.max_run_timeout_ms) +
                                    " ms unless the operator set another)"));
    CHECK(contains(description, "output_limit after " +
                                    std::to_string(defaults.output_bytes >> 20) +
                                    " MiB of stdout or stderr by default)"));
    const std::string timeout = kg::mcp::timeout_parameter_description(offered);
    CHECK(contains(timeout, "the default (" + std::to_string(defaults.run_timeout_ms) +
                                " unless the operator set another)"));
  }
}

TEST_CASE("the daemon's limits are stated as this daemon's") {
  kg::mcp::OfferedRuntimes offered;
  offered.limits = kg::wire::daemon_api::CallLimits{1500, 90'000, 240'000, 1500};
  const std::string description = kg::mcp::execute_go_code_description(offered);
  CAPTURE(description);
  CHECK(contains(description, "wall-clock limit (1500 ms on this daemon; the build has its own, 240 s)"));
  CHECK(contains(description, "maximum (90000 ms on this daemon)"));
  CHECK(contains(description, "output_limit after 1500 bytes of stdout or stderr)"));
  CHECK_FALSE(contains(description, "unless the operator"));
  const std::string timeout = kg::mcp::timeout_parameter_description(offered);
  CHECK(contains(timeout, "the default (1500 on this daemon)"));
  CHECK(contains(timeout, "max_run_timeout_ms (90000 ms on this daemon)"));
  CHECK(contains(timeout, "The build has its own limit (240 s)"));
}
