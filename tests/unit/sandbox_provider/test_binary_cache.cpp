#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "binary_cache.hpp"
#include "../../support/test_loggers.hpp"

namespace fs = std::filesystem;
using kg::sandbox::BinaryCache;

namespace {

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("kg-bincache-" + std::to_string(std::random_device{}()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string file(const std::string& name, std::size_t size) {
    const auto path = dir / name;
    std::ofstream(path) << std::string(size, 'x');
    return path.string();
  }
};

std::string key(char c) { return std::string(64, c); }

const std::string kAlice = "https://issuer.example#alice";
const std::string kBob = "https://issuer.example#bob";

}  // namespace

TEST_CASE("store then hit; keys must be 64 lowercase hex digits") {
  Scratch scratch;
  kg::test::NullLogger logger;
  BinaryCache cache((scratch.dir / "cache").string(), 1 << 20, logger);
  CHECK_FALSE(cache.contains(kAlice, key('a')));
  cache.store(kAlice, key('a'), scratch.file("prog", 100));
  CHECK(cache.contains(kAlice, key('a')));
  CHECK(fs::file_size(scratch.dir / "cache" / kg::sandbox::owner_folder_name(kAlice) / key('a')) == 100);
  CHECK_FALSE(BinaryCache::valid_key("../../etc/passwd"));
  CHECK_FALSE(BinaryCache::valid_key(std::string(64, 'A')));
  CHECK_FALSE(cache.contains(kAlice, "../prog"));
  CHECK_THROWS_WITH(cache.store(kAlice, "nothex", scratch.file("p2", 1)), "invalid binary cache key 'nothex'");
}

TEST_CASE("the least recently used programs are evicted past the bound") {
  Scratch scratch;
  kg::test::NullLogger logger;
  BinaryCache cache((scratch.dir / "cache").string(), 1000, logger);
  cache.store(kAlice, key('1'), scratch.file("one", 400));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cache.store(kAlice, key('2'), scratch.file("two", 400));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(cache.contains(kAlice, key('1')));  // now the most recently used
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cache.store(kAlice, key('3'), scratch.file("three", 400));  // 1200 > 1000: evict down to 900
  CHECK(cache.contains(kAlice, key('1')));
  CHECK_FALSE(cache.contains(kAlice, key('2')));
  CHECK(cache.contains(kAlice, key('3')));
}

TEST_CASE("a bound of 0 turns the cache off") {
  Scratch scratch;
  kg::test::NullLogger logger;
  BinaryCache cache((scratch.dir / "cache").string(), 0, logger);
  cache.store(kAlice, key('a'), scratch.file("prog", 10));
  CHECK_FALSE(cache.contains(kAlice, key('a')));
}

TEST_CASE("store_later copies on the cache's thread; contains() waits for a queued key") {
  Scratch scratch;
  kg::test::NullLogger logger;
  const std::string dir = (scratch.dir / "cache").string();
  {
    BinaryCache cache(dir, 1 << 24, logger);
    const auto path = scratch.file("big", 4 << 20);
    kg::sandbox::OwnedFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    REQUIRE(file);
    // The descriptor is what is copied: the path may go away meanwhile.
    fs::remove(path);
    cache.store_later(kAlice, key('b'), std::move(file));
    CHECK(cache.contains(kAlice, key('b')));  // waits for the copy rather than missing
    CHECK(fs::file_size(fs::path(dir) / kg::sandbox::owner_folder_name(kAlice) / key('b')) == (4u << 20));

    // More than kMaxPendingStores at once: the rest are copied on the caller's thread; the
    // destructor finishes what is queued.
    for (char c : std::string("0123456789")) {
      kg::sandbox::OwnedFd more(::open(scratch.file(std::string("p") + c, 1000).c_str(),
                                       O_RDONLY | O_CLOEXEC));
      cache.store_later(kAlice, key(c), std::move(more));
    }
  }
  BinaryCache reopened(dir, 1 << 24, logger);
  for (char c : std::string("0123456789b")) {
    CAPTURE(c);
    CHECK(reopened.contains(kAlice, key(c)));
  }
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
  }
}

TEST_CASE("a copy whose source changed meanwhile is dropped; only dead daemons' leftovers go") {
  Scratch scratch;
  kg::test::NullLogger logger;
  const std::string dir = (scratch.dir / "cache").string();
  fs::create_directories(dir);
  // A dead daemon's half-copied file, and one of a live daemon (this process) sharing the folder.
  std::ofstream(fs::path(dir) / (key('d') + ".tmp.999999999.1")) << "half";
  const std::string live = key('l') + ".tmp." + std::to_string(::getpid()) + ".1";
  std::ofstream(fs::path(dir) / live) << "in progress";
  BinaryCache cache(dir, 1 << 20, logger);
  CHECK_FALSE(fs::exists(fs::path(dir) / (key('d') + ".tmp.999999999.1")));
  CHECK(fs::exists(fs::path(dir) / live));

  const auto path = scratch.file("prog", 100);
  struct stat before {};
  REQUIRE(::stat(path.c_str(), &before) == 0);
  timespec stale = before.st_ctim;
  stale.tv_sec -= 1;
  CHECK_THROWS_WITH(cache.store(kAlice, key('c'), path, &stale),
                    doctest::Contains("the built program changed before it was copied"));
  CHECK_FALSE(cache.contains(kAlice, key('c')));
  cache.store(kAlice, key('c'), path, &before.st_ctim);
  CHECK(cache.contains(kAlice, key('c')));
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".tmp." + std::to_string(::getpid()) + ".2") ==
          std::string::npos);
  }
}

TEST_CASE("each owner sees only its own programs; a hit is linked into the sandbox's folder") {
  Scratch scratch;
  kg::test::NullLogger logger;
  const fs::path dir = scratch.dir / "cache";
  // A program of the former cache that every user shared is gone at start.
  fs::create_directories(dir);
  std::ofstream(dir / key('f')) << "shared";
  BinaryCache cache(dir.string(), 1 << 20, logger);
  CHECK_FALSE(fs::exists(dir / key('f')));
  cache.store(kAlice, key('a'), scratch.file("alice", 100));
  CHECK(cache.contains(kAlice, key('a')));
  CHECK_FALSE(cache.contains(kBob, key('a')));
  CHECK_FALSE(cache.contains("", key('a')));  // the daemon's own user is another owner
  const fs::path alice_folder = dir / kg::sandbox::owner_folder_name(kAlice);
  CHECK((fs::status(alice_folder).permissions() & fs::perms::all) == fs::perms::owner_all);

  const fs::path links = scratch.dir / "sandbox-links";
  CHECK_FALSE(cache.link_into(kBob, key('a'), links.string()));
  CHECK_FALSE(fs::exists(links / key('a')));
  REQUIRE(cache.link_into(kAlice, key('a'), links.string()));
  CHECK(fs::equivalent(links / key('a'), alice_folder / key('a')));  // the same file, no copy
  CHECK(fs::hard_link_count(alice_folder / key('a')) == 2);
}
