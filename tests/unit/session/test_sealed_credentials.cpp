// seal_for_sandbox: a sealed call's sandbox gets a fresh random placeholder with the real
// token's expiry, the proxy gets the real token; any other mode is left as it is.
#include <doctest/doctest.h>

#include "sealed_credentials.hpp"

using kg::plugin::CredentialMode;
using kg::plugin::RunCredentials;
using kg::session::seal_for_sandbox;

namespace {

std::optional<RunCredentials> credentials(CredentialMode mode) {
  RunCredentials run;
  run.mode = mode;
  run.token.access_token = "ya29.real-token";
  run.token.expiry_rfc3339 = "2026-12-03T09:00:00Z";
  return run;
}

}  // namespace

TEST_CASE("sealed: the sandbox gets a new placeholder per call, the proxy the real token") {
  auto first = credentials(CredentialMode::sealed);
  const auto sealed = seal_for_sandbox(first);
  REQUIRE(sealed.has_value());
  CHECK(sealed->access_token == "ya29.real-token");
  CHECK(first->token.access_token == sealed->placeholder);
  CHECK(sealed->placeholder.starts_with("kg-sealed."));
  CHECK(sealed->placeholder.size() == 10 + 43);
  CHECK(first->token.expiry_rfc3339 == "2026-12-03T09:00:00Z");
  CHECK(std::chrono::system_clock::to_time_t(sealed->expiry) == 1796288400);
  auto second = credentials(CredentialMode::sealed);
  CHECK(seal_for_sandbox(second)->placeholder != sealed->placeholder);
}

TEST_CASE("other modes and no credentials are not sealed") {
  for (const auto mode : {CredentialMode::access_token, CredentialMode::forwarded, CredentialMode::workload}) {
    auto run = credentials(mode);
    CHECK_FALSE(seal_for_sandbox(run).has_value());
    CHECK(run->token.access_token == "ya29.real-token");
  }
  std::optional<RunCredentials> none;
  CHECK_FALSE(seal_for_sandbox(none).has_value());
}
