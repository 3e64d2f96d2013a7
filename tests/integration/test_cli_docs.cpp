// `kode-gopher docs PACKAGE [SYMBOL]` against a real daemon: go doc of the curated versions, the
// near names for a misspelled symbol, the curated list for another package, and no session left
// open behind it (the command opens one for the lookup and closes it).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::run_cli;

namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("kode-gopher docs: a symbol, a near miss, another package") {
  DaemonFixture daemon;
  daemon.start();
  std::string out, err;

  SUBCASE("a symbol's go doc, and --json with its codec's members") {
    CHECK(run_cli({"--config", daemon.config_path(), "docs", "cloud.google.com/go/storage",
                   "NewClient"},
                  out, err) == 0);
    INFO("stdout: " << out << "\nstderr: " << err);
    CHECK(contains(out,
                   "func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error)"));
    CHECK(out.ends_with("\n"));
    CHECK(run_cli({"--config", daemon.config_path(), "docs", "--json",
                   "cloud.google.com/go/storage", "Client.Bucket"},
                  out, err) == 0);
    CHECK(contains(out, R"("package": "cloud.google.com/go/storage")"));
    CHECK(contains(out, R"("symbol": "Client.Bucket")"));
    CHECK(contains(out, "func (c *Client) Bucket(name string) *BucketHandle"));
  }
  SUBCASE("a misspelled symbol: exit 64 and the near name") {
    CHECK(run_cli({"--config", daemon.config_path(), "docs", "cloud.google.com/go/storage",
                   "NewClinet"},
                  out, err) == 64);
    INFO("stdout: " << out << "\nstderr: " << err);
    CHECK(out.empty());
    CHECK(err.starts_with("kode-gopher: "));
    CHECK(contains(err, "NewClinet"));
    CHECK(contains(lowercase(err), "did you mean newclient"));
    CHECK_FALSE(contains(err, "GOPROXY"));  // the one useful line, not go's module noise
  }
  SUBCASE("a package outside the curated list: exit 64 and the list") {
    CHECK(run_cli({"--config", daemon.config_path(), "docs", "os/exec"}, out, err) == 64);
    INFO("stdout: " << out << "\nstderr: " << err);
    CHECK(contains(err, "\"os/exec\" is not a curated package"));
    CHECK(contains(err, "cloud.google.com/go/storage"));
  }
  SUBCASE("no package: a usage error before any request") {
    CHECK(run_cli({"--config", daemon.config_path(), "docs"}, out, err) == 64);
    CHECK(contains(err, "package is required"));
  }
  // Every lookup closed the session it opened.
  const auto sessions = daemon.json(daemon.get("/v1/sessions"));
  CHECK(sessions["sessions"].Size() == 0);
}
