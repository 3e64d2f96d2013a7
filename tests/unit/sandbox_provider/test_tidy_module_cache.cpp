// The tidy module cache (daemon/gocache/tidy_module_cache.hpp): one private folder per owner,
// bounded over all owners with least-recently-used eviction by module version, and links of only
// what a go.sum names into a sandbox's folder. Laid out by hand as the go command lays out
// GOMODCACHE, so no Go toolchain or module proxy is needed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "module_versions.hpp"
#include "owner_folder.hpp"
#include "tidy_module_cache.hpp"
#include "../../support/test_loggers.hpp"

namespace fs = std::filesystem;
using kg::sandbox::TidyModuleCache;

namespace {

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("kg-tidycache-" + std::to_string(std::random_device{}()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    for (auto& e : fs::recursive_directory_iterator(dir, ec)) {
      fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(dir, ec);
  }
};

void write(const fs::path& path, std::size_t size) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << std::string(size, 'm');
}

// What `go mod tidy` leaves of one module version in an owner's GOMODCACHE: the downloads (a
// file:// proxy's layout) and the unpacked tree, made read-only as the go command does.
void add_module(const fs::path& modcache, const std::string& escaped_path, const std::string& version,
                std::size_t zip_bytes) {
  const fs::path at_v = modcache / "cache/download" / escaped_path / "@v";
  write(at_v / (version + ".info"), 10);
  write(at_v / (version + ".mod"), 20);
  write(at_v / (version + ".zip"), zip_bytes);
  write(at_v / (version + ".ziphash"), 30);
  const fs::path tree = modcache / (escaped_path + "@" + version);
  write(tree / "lib.go", zip_bytes);
  fs::permissions(tree, fs::perms::owner_read | fs::perms::owner_exec);
}

const std::string kAlice = "https://issuer.example#alice";
const std::string kBob = "https://issuer.example#bob";

}  // namespace

TEST_CASE("go.sum lines name module versions; escaping refuses what could leave the cache") {
  const auto modules = kg::sandbox::go_sum_modules(
      "github.com/BurntSushi/toml v1.3.2 h1:abc=\n"
      "github.com/BurntSushi/toml v1.3.2/go.mod h1:def=\n"
      "golang.org/x/text v0.3.0/go.mod h1:ghi=\n"
      "not a go.sum line at all\n");
  CHECK(modules == std::set<kg::sandbox::ModuleVersion>{{"github.com/BurntSushi/toml", "v1.3.2"},
                                                       {"golang.org/x/text", "v0.3.0"}});
  CHECK(kg::sandbox::module_download_stem({"github.com/BurntSushi/toml", "v1.3.2"}) ==
        "cache/download/github.com/!burnt!sushi/toml/@v/v1.3.2");
  CHECK(kg::sandbox::module_download_stem({"../../etc", "v1.0.0"}).empty());
  CHECK(kg::sandbox::module_download_stem({"example.com/x", "../v1"}).empty());
  CHECK(kg::sandbox::module_download_stem({"/abs/x", "v1.0.0"}).empty());
  CHECK(kg::sandbox::module_download_stem({"example.com/x", "v1 .0"}).empty());
}

TEST_CASE("each owner tidies in a private folder; a sandbox gets links to its go.sum's modules only") {
  Scratch scratch;
  kg::test::NullLogger logger;
  const fs::path root = scratch.dir / "gomodcache-extra";
  // What an older daemon shared between all users is removed at start.
  write(root / "cache/download/example.com/old/@v/v1.0.0.zip", 100);
  TidyModuleCache cache(root.string(), 1 << 20, logger);
  CHECK_FALSE(fs::exists(root / "cache"));

  const fs::path alice = cache.owner_modcache(kAlice);
  const fs::path bob = cache.owner_modcache(kBob);
  CHECK(alice != bob);
  CHECK((fs::status(alice).permissions() & fs::perms::all) == fs::perms::owner_all);
  CHECK((fs::status(root).permissions() & fs::perms::all) == fs::perms::owner_all);
  add_module(alice, "example.com/alice/secret", "v1.0.0", 100);
  add_module(alice, "example.com/alice/other", "v2.0.0", 100);

  const fs::path links = scratch.dir / "sandbox-modules";
  const std::string go_sum = "example.com/alice/secret v1.0.0 h1:x=\n"
                             "example.com/alice/secret v1.0.0/go.mod h1:y=\n";
  // Bob's go.sum naming Alice's module finds nothing: his own folder does not have it.
  CHECK(cache.link_for(kBob, go_sum, links.string()) == 0);
  CHECK_FALSE(fs::exists(links / "cache"));
  CHECK(cache.link_for(kAlice, go_sum, links.string()) == 1);
  const fs::path at_v = links / "cache/download/example.com/alice/secret/@v";
  for (const char* suffix : {".info", ".mod", ".zip", ".ziphash"}) {
    CAPTURE(suffix);
    CHECK(fs::equivalent(at_v / (std::string("v1.0.0") + suffix),
                         alice / "cache/download/example.com/alice/secret/@v" / (std::string("v1.0.0") + suffix)));
  }
  CHECK_FALSE(fs::exists(links / "cache/download/example.com/alice/other"));
}

TEST_CASE("past the bound the least recently used module versions go, over all owners") {
  Scratch scratch;
  kg::test::NullLogger logger;
  const fs::path root = scratch.dir / "gomodcache-extra";
  // Each module version: 60 bytes of downloads beside its zip, and an unpacked tree the zip's size.
  constexpr std::size_t kZip = 1000;
  constexpr std::size_t kEntry = 60 + 2 * kZip;
  fs::path alice, bob;
  {
    TidyModuleCache cache(root.string(), 1 << 20, logger);
    alice = cache.owner_modcache(kAlice);
    bob = cache.owner_modcache(kBob);
    {
      const TidyModuleCache::Use tidy(cache);
      add_module(alice, "example.com/a", "v1.0.0", kZip);
      add_module(bob, "example.com/b", "v1.0.0", kZip);
      add_module(alice, "example.com/c", "v1.0.0", kZip);
    }
    const auto usage = cache.usage();
    CHECK(usage.entries == 3);
    CHECK(usage.bytes == 3 * kEntry);
    CHECK(usage.limit_bytes == (1u << 20));
  }
  // Oldest first: a, then b, then c; then a is used again (a sandbox's go.sum names it).
  const auto now = fs::file_time_type::clock::now();
  auto age = [&](const fs::path& modcache, const std::string& module, int minutes) {
    for (const char* suffix : {".info", ".mod", ".zip", ".ziphash"}) {
      fs::last_write_time(modcache / "cache/download" / module / "@v" / (std::string("v1.0.0") + suffix),
                          now - std::chrono::minutes(minutes));
    }
  };
  age(alice, "example.com/a", 30);
  age(bob, "example.com/b", 20);
  age(alice, "example.com/c", 10);
  {
    TidyModuleCache cache(root.string(), 1 << 20, logger);
    CHECK(cache.link_for(kAlice, "example.com/a v1.0.0 h1:x=\n", (scratch.dir / "links").string()) == 1);
  }
  // A bound for two entries (reopening evicts to 90 % of it): b, the least recently used, goes.
  TidyModuleCache bounded(root.string(), 2 * kEntry + kEntry / 2, logger);
  auto usage = bounded.usage();
  CHECK(usage.entries == 2);
  CHECK(usage.bytes == 2 * kEntry);
  CHECK(usage.limit_bytes == 2 * kEntry + kEntry / 2);
  CHECK_FALSE(fs::exists(bob / "cache/download/example.com/b/@v/v1.0.0.zip"));
  CHECK_FALSE(fs::exists(bob / "example.com/b@v1.0.0"));  // the read-only unpacked tree too
  CHECK(fs::exists(alice / "cache/download/example.com/a/@v/v1.0.0.zip"));
  CHECK(fs::exists(alice / "example.com/c@v1.0.0/lib.go"));
  // The sandbox that linked a keeps its files whatever is evicted later.
  CHECK(fs::exists(scratch.dir / "links/cache/download/example.com/a/@v/v1.0.0.zip"));

  // Nothing is evicted while a tidy is under way; the last one to end evicts.
  {
    const TidyModuleCache::Use tidy(bounded);
    add_module(bob, "example.com/d", "v1.0.0", kZip);
    {
      const TidyModuleCache::Use other(bounded);
    }
    CHECK(fs::exists(alice / "cache/download/example.com/c/@v/v1.0.0.zip"));
  }
  usage = bounded.usage();
  CHECK(usage.entries == 2);
  CHECK_FALSE(fs::exists(alice / "cache/download/example.com/c/@v/v1.0.0.zip"));  // the oldest now
  CHECK(fs::exists(bob / "cache/download/example.com/d/@v/v1.0.0.zip"));
}
