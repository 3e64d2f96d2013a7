// The daemon API's plugins listing (GET /v1/plugins and `kode-gopherd --describe-runtimes`,
// docs/daemon-api.md): what the daemon writes comes back equal through the CLI's and the MCP
// server's reading, and an answer out of shape is refused naming the member.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/plugins_listing.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

PluginsListing decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return decode_plugins_listing(read.document);
}

}  // namespace

TEST_CASE("a plugins listing survives encode and decode unchanged") {
  PluginsListing listing;
  listing.plugins = std::vector<PluginEntry>{
      {"compiled-go", "runtime", "0.1.0", "go build", "/p/compiled-go.so", "ready", ""},
      {"yaegi", "runtime", "0.1.0", "interpreter", "/p/yaegi.so", "unavailable", "no runner"}};
  listing.runtimes = {{"compiled-go", true, false, "builds any module", {}, ""},
                      {"yaegi", false, false, "interprets", {}, "no runner"},
                      {"auto", false, true, "picks", {"yaegi", "compiled-go"}, "needs yaegi"}};
  CHECK(decode_text(encode_plugins_listing(listing)) == listing);
  // The daemon's [limits], as the MCP tool's description states them.
  listing.limits = CallLimits{1500, 90'000, 240'000, 1ull << 20};
  const std::string with_limits = encode_plugins_listing(listing);
  CHECK(with_limits.find(R"("limits":{"run_timeout_ms":1500,"max_run_timeout_ms":90000,)"
                         R"("build_timeout_ms":240000,"output_bytes":1048576})") !=
        std::string::npos);
  CHECK(decode_text(with_limits) == listing);
  listing.limits.reset();

  // --describe-runtimes: the runtimes alone, and "plugins" stays absent.
  PluginsListing runtimes_only;
  runtimes_only.runtimes = listing.runtimes;
  const std::string text = encode_plugins_listing(runtimes_only);
  CHECK(text.find("\"plugins\"") == std::string::npos);
  CHECK(decode_text(text) == runtimes_only);
}

TEST_CASE("a plugins listing out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_text(R"({"plugins": []})"),
                       "the daemon's plugins listing has no \"runtimes\" array",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"runtimes": [{"name": "x", "available": "yes"}]})"),
                       "the daemon's plugins listing has \"runtimes[0].available\" that is not "
                       "true or false",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"runtimes": [{"available": true}]})"),
                       "the daemon's plugins listing has \"runtimes[0].name\" that is not a "
                       "runtime's name",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"runtimes": [], "limits": 60000})"),
                       "the daemon's plugins listing has \"limits\" that is not an object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(
      decode_text(R"({"runtimes": [], "limits": {"run_timeout_ms": 1, "max_run_timeout_ms": 2,)"
                  R"( "build_timeout_ms": 3}})"),
      "the daemon's plugins listing has \"limits\" without \"output_bytes\"",
      kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(
      decode_text(R"({"runtimes": [], "limits": {"run_timeout_ms": -1, "max_run_timeout_ms": 2,)"
                  R"( "build_timeout_ms": 3, "output_bytes": 4}})"),
      "the daemon's plugins listing has \"limits.run_timeout_ms\" that is not a whole number",
      kg::wire::MalformedMessage);
}
