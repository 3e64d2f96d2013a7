// The team suite's upstream OpenID Connect provider: oidc/mock_oidc_provider.mjs (on
// oauth2-mock-server) as a child process on loopback, installed with `npm ci` into the build
// tree on first use. The identity a sign-in gets is chosen by login_hint (see the .mjs).
//
// Environment: KG_TEAM_OIDC_DIR (the build tree's copy of tests/team/oidc), KG_NPM. It runs on
// the Node 22 its package installs (`node` from npm), not the system's.
#pragma once

#include <Poco/Process.h>

#include <memory>
#include <string>

namespace kg::test {

class MockOidcProvider {
 public:
  // Installs (once per package-lock.json) and starts the provider; fails the test (REQUIRE)
  // when it does not come up.
  MockOidcProvider();
  ~MockOidcProvider();  // stops it
  MockOidcProvider(const MockOidcProvider&) = delete;
  MockOidcProvider& operator=(const MockOidcProvider&) = delete;

  const std::string& issuer() const { return issuer_; }  // "http://127.0.0.1:<port>"

 private:
  std::unique_ptr<Poco::ProcessHandle> process_;
  std::string issuer_;
};

}  // namespace kg::test
