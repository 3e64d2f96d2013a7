// Two users of one team-mode daemon (signed in through the daemon's OAuth in front of the
// loopback OpenID provider of the team suite) must not see each other's builds: alice's program,
// with a marker string, is built and cached, and a module holding another marker lies in alice's
// tidy module cache (where her `go mod tidy` would have put it: a real tidy needs the Go module
// proxy for the lockfile's module graph, and this test talks to loopback only); bob's program then
// lists and reads everything its sandbox has of the binary cache and the tidied modules and must
// find neither (docs/security.md, "Caches between users"). On a daemon that binds the whole
// binary cache and module cache into every sandbox, bob finds both.
#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "daemon_fixture.hpp"
#include "mock_oidc_provider.hpp"
#include "node_clients.hpp"
#include "team_daemon.hpp"

namespace kg::test {
namespace {

namespace fs = std::filesystem;

std::string random_suffix() {
  std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(rng());
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// What `go mod tidy` leaves in a GOMODCACHE of one module, example.com/alicesecret v1.0.0,
// whose package holds `marker`: its downloads (a file:// proxy's layout) and its unpacked tree.
void plant_module(const fs::path& modcache, const std::string& marker) {
  const fs::path at_v = modcache / "cache/download/example.com/alicesecret/@v";
  const std::string go_mod = "module example.com/alicesecret\n\ngo 1.21\n";
  const std::string source = "package alicesecret\n\nconst Marker = \"" + marker + "\"\n";
  write_text(at_v / "list", "v1.0.0\n");
  write_text(at_v / "v1.0.0.info", R"({"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"})");
  write_text(at_v / "v1.0.0.mod", go_mod);
  write_text(at_v / "v1.0.0.zip", source);  // not a real zip: only its name and bytes matter here
  write_text(modcache / "example.com/alicesecret@v1.0.0/go.mod", go_mod);
  write_text(modcache / "example.com/alicesecret@v1.0.0/secret.go", source);
}

// The daemon's folder name for an owner (daemon/gocache/owner_folder.cpp): "o-" and 32 hex
// digits of the sha256 of the owner's id.
std::string owner_folder_name(const std::string& owner_id) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(owner_id);
  return "o-" + Poco::DigestEngine::digestToHex(sha.digest()).substr(0, 32);
}

std::string reversed(std::string text) {
  std::reverse(text.begin(), text.end());
  return text;
}

std::string alice_program(const std::string& binary_marker) {
  return R"(package main

import "fmt"

const marker = ")" + binary_marker + R"("

func main() { fmt.Println(marker) }
)";
}

// Walks what the sandbox has of the binary cache and the tidied modules, reads every file, and
// reports each path, any path naming alice's module and any file holding one of her markers.
// The markers are in the source reversed, so bob's own binary never holds them.
std::string bob_program(const std::string& binary_marker, const std::string& module_marker) {
  return R"(package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func reverse(s string) string {
	r := []byte(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func main() {
	markers := []string{reverse(")" + reversed(binary_marker) + R"("), reverse(")" +
         reversed(module_marker) + R"(")}
	for _, root := range []string{"/opt/kode-gopher/bincache", "/opt/kode-gopher/gomodcache-extra"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Println("walk-error", path, err)
				return nil
			}
			if path != root {
				fmt.Println("entry", path)
			}
			if strings.Contains(path, "alicesecret") {
				fmt.Println("FOUND-NAME", path)
			}
			if d.Type().IsRegular() {
				data, err := os.ReadFile(path)
				if err != nil {
					fmt.Println("read-error", path, err)
					return nil
				}
				for _, m := range markers {
					if strings.Contains(string(data), m) {
						fmt.Println("FOUND-MARKER", path)
					}
				}
			}
			return nil
		})
	}
	_, err := os.Stat("/opt/kode-gopher/gomodcache-extra/cache/download/example.com/alicesecret/@v/v1.0.0.zip")
	fmt.Println("guessed-path-exists", err == nil)
}
)";
}

std::string oauth_config(const MockOidcProvider& provider) {
  return "auth = oauth\n"
         "[oauth]\n"
         "issuer = " + provider.issuer() + "\n"
         "client_id = kode-gopher-team-test\n"
         "allowed_users = alice@example.com bob@example.com\n";
}

// The call's result (structuredContent) of one signed-in run of `code` as `user`.
rapidjson::Document run_as(const TeamDaemon& team, const std::string& user, const std::string& code) {
  rapidjson::Document run = run_team_client(
      "sign_in_and_run.mjs", {"--url", team.url + "/mcp", "--login-hint", user, "--code", code});
  rapidjson::StringBuffer text;
  rapidjson::Writer<rapidjson::StringBuffer> writer(text);
  run.Accept(writer);
  INFO(user << ": " << text.GetString());
  REQUIRE(run["ok"].GetBool());
  rapidjson::Document result;
  result.CopyFrom(run["result"]["structuredContent"], result.GetAllocator());
  return result;
}

// SessionOwner::id of the user's newest session, from GET /v1/sessions.
std::string owner_id_of(const TeamDaemon& team, const std::string& email) {
  const auto sessions = team.daemon->json(team.daemon->get("/v1/sessions?all=true"));
  std::string owner;
  for (const auto& session : sessions["sessions"].GetArray()) {
    if (json_string(session, "owner_email") == email) owner = json_string(session, "owner");
  }
  REQUIRE_FALSE(owner.empty());
  return owner;
}

}  // namespace

TEST_CASE("hostile owners: a second user cannot list or read the first user's binaries or tidied modules") {
  const std::string suffix = random_suffix();
  const std::string binary_marker = "kg-alice-binary-" + suffix;
  const std::string module_marker = "kg-alice-module-" + suffix;
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider));

  const auto alice = run_as(team, "alice@example.com", alice_program(binary_marker));
  INFO("alice: " << json_string(alice, "stdout") << json_string(alice, "stderr"));
  REQUIRE(json_string(alice, "status") == "ok");
  CHECK_FALSE(alice["cache_hit"].GetBool());
  CHECK(json_string(alice, "stdout") == binary_marker + "\n");
  const fs::path alice_modules = fs::path(team.daemon->state_dir()) / "gomodcache-extra" /
                                 owner_folder_name(owner_id_of(team, "alice@example.com"));
  REQUIRE(fs::is_directory(fs::path(team.daemon->state_dir()) / "gomodcache-extra"));
  plant_module(alice_modules, module_marker);

  const auto bob = run_as(team, "bob@example.com", bob_program(binary_marker, module_marker));
  const std::string seen = json_string(bob, "stdout");
  INFO("bob: " << seen << json_string(bob, "stderr"));
  REQUIRE(json_string(bob, "status") == "ok");
  CHECK(seen.find("FOUND-") == std::string::npos);
  CHECK(seen.find("guessed-path-exists false") != std::string::npos);
  // Bob's sandbox has had no cache hit and no tidy: both its folders are empty.
  CHECK(seen.find("entry /opt/kode-gopher/") == std::string::npos);
  CHECK(seen.find("walk-error") == std::string::npos);

  // Alice's exact program is not served to bob from her build; alice gets her own hit.
  const auto bob_copy = run_as(team, "bob@example.com", alice_program(binary_marker));
  CHECK(json_string(bob_copy, "status") == "ok");
  CHECK_FALSE(bob_copy["cache_hit"].GetBool());
  const auto alice_again = run_as(team, "alice@example.com", alice_program(binary_marker));
  CHECK(json_string(alice_again, "status") == "ok");
  CHECK(alice_again["cache_hit"].GetBool());
  CHECK(json_string(alice_again, "stdout") == binary_marker + "\n");

  // The tidy module cache's use is in /v1/health, against the default bound.
  const auto health = team.daemon->json(team.daemon->get("/v1/health"));
  REQUIRE(health.HasMember("tidy_modules"));
  CHECK(health["tidy_modules"]["limit_bytes"].GetUint64() == (1ull << 30));
  CHECK(health["tidy_modules"].HasMember("bytes"));
  CHECK(health["tidy_modules"].HasMember("entries"));
}

}  // namespace kg::test
