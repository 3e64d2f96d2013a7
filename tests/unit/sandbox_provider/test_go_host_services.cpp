// The Go side's host services (daemon/gocache): the binary cache service serves each sandbox
// only its own owner's programs, through the sandbox's host folder, and stores only what a clean
// build left; go mod tidy needs a daemon handle with a host folder; the package docs lookup
// builds the one go doc command and refuses what is not a curated package or a Go symbol.
#include <doctest/doctest.h>

#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "binary_cache_host_service.hpp"
#include "module_tidy_host_service.hpp"
#include "package_docs_lookup.hpp"
#include "sandbox_paths.hpp"
#include "sandbox_provider.hpp"
#include "../../support/test_loggers.hpp"

namespace fs = std::filesystem;
using namespace kg::sandbox;
using kg::plugin::SandboxError;

namespace {

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("kg-goside-" + std::to_string(std::random_device{}()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
};

std::string key(char c) { return std::string(64, c); }
std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

[[noreturn]] void unused() { throw std::logic_error("the service used the runtime API"); }

// A daemon handle of a sandbox whose host folder and home are plain folders of the test.
class FakeCallHandle final : public CallHandle {
 public:
  FakeCallHandle(std::string owner, fs::path root, bool has_folders = true)
      : owner_(std::move(owner)), root_(std::move(root)), has_folders_(has_folders) {
    fs::create_directories(root_ / "bincache");
    fs::create_directories(root_ / "home");
  }
  void replace_workdir(std::span<const kg::plugin::SourceFile>) override { unused(); }
  void upload_files(std::span<const kg::plugin::SourceFile>) override { unused(); }
  kg::plugin::CommandOutcome run_command(const kg::plugin::CommandSpec&) override { unused(); }
  std::optional<std::string> read_file(std::string_view, std::uint64_t) override { unused(); }
  std::optional<std::string> folder_tar(std::string_view, const FolderTarBounds&) override {
    unused();
  }

  const std::string& owner() const noexcept override { return owner_; }
  SandboxWait* wait() const noexcept override { return nullptr; }
  std::optional<std::string> host_folder(std::string_view sandbox_path) override {
    if (!has_folders_) return std::nullopt;
    REQUIRE(sandbox_path == kSandboxBinaryCachePath);
    return (root_ / "bincache").string();
  }
  bool last_command_built_clean() const noexcept override { return built_clean; }
  std::optional<TakenFile> take_file(std::string_view sandbox_path) override {
    if (!has_folders_) return std::nullopt;
    const std::string home = kSandboxHome;
    REQUIRE(sandbox_path.starts_with(home + "/"));
    const fs::path file = root_ / "home" / std::string(sandbox_path.substr(home.size() + 1));
    return TakenFile{OwnedFd(::open(file.c_str(), O_RDONLY | O_CLOEXEC)), false};
  }

  // What a build left in the sandbox's home.
  void build(const std::string& name, const std::string& content) {
    std::ofstream(root_ / "home" / name) << content;
    built_clean = true;
  }
  fs::path links() const { return root_ / "bincache"; }
  bool built_clean = false;

 private:
  std::string owner_;
  fs::path root_;
  bool has_folders_;
};

// A handle the daemon did not make (a plugin's own): it gets nothing of the host.
class ForeignHandle final : public kg::plugin::SandboxHandle {
 public:
  void replace_workdir(std::span<const kg::plugin::SourceFile>) override { unused(); }
  void upload_files(std::span<const kg::plugin::SourceFile>) override { unused(); }
  kg::plugin::CommandOutcome run_command(const kg::plugin::CommandSpec&) override { unused(); }
  std::optional<std::string> read_file(std::string_view, std::uint64_t) override { unused(); }
};

const std::string kAlice = "https://issuer.example#alice";
const std::string kBob = "https://issuer.example#bob";

}  // namespace

TEST_CASE("the binary cache service serves each sandbox only its own owner's programs") {
  Scratch scratch;
  kg::test::RecordingLogger logger;
  BinaryCache cache((scratch.dir / "cache").string(), 1 << 20, logger);
  BinaryCacheHostService service(cache, logger);

  FakeCallHandle alice(kAlice, scratch.dir / "alice-1");
  alice.build("prog", "alice's program");
  service.store_binary(alice, key('a'), std::string(kSandboxHome) + "/prog");
  REQUIRE(cache.contains(kAlice, key('a')));

  // Bob's sandbox misses Alice's program, and nothing of hers lands in its folder.
  FakeCallHandle bob(kBob, scratch.dir / "bob-1");
  CHECK_FALSE(service.cached_binary(bob, key('a')));
  CHECK(fs::is_empty(bob.links()));

  // Alice's next sandbox gets it, as a link in its own folder at the in-sandbox path.
  FakeCallHandle alice_again(kAlice, scratch.dir / "alice-2");
  const auto hit = service.cached_binary(alice_again, key('a'));
  REQUIRE(hit);
  CHECK(*hit == std::string(kSandboxBinaryCachePath) + "/" + key('a'));
  CHECK(read(alice_again.links() / key('a')) == "alice's program");
}

TEST_CASE("the binary cache service stores only what a clean build just made") {
  Scratch scratch;
  kg::test::RecordingLogger logger;
  BinaryCache cache((scratch.dir / "cache").string(), 1 << 20, logger);
  BinaryCacheHostService service(cache, logger);
  FakeCallHandle alice(kAlice, scratch.dir / "alice");
  alice.build("prog", "built");
  alice.built_clean = false;  // a later command ran since, or the build was not clean_state
  service.store_binary(alice, key('b'), std::string(kSandboxHome) + "/prog");
  CHECK_FALSE(cache.contains(kAlice, key('b')));
  REQUIRE(logger.lines().size() == 1);
  CHECK(logger.lines()[0] ==
        "Binary cache: not stored: the last command was not a successful clean-state build");
}

TEST_CASE("the binary cache service gives nothing to a foreign handle or a sandbox without host folders") {
  Scratch scratch;
  kg::test::RecordingLogger logger;
  BinaryCache cache((scratch.dir / "cache").string(), 1 << 20, logger);
  BinaryCacheHostService service(cache, logger);
  FakeCallHandle alice(kAlice, scratch.dir / "alice");
  alice.build("prog", "alice's program");
  service.store_binary(alice, key('c'), std::string(kSandboxHome) + "/prog");
  REQUIRE(cache.contains(kAlice, key('c')));

  ForeignHandle foreign;
  CHECK_FALSE(service.cached_binary(foreign, key('c')));
  service.store_binary(foreign, key('d'), std::string(kSandboxHome) + "/prog");
  CHECK_FALSE(cache.contains("", key('d')));

  FakeCallHandle pod(kAlice, scratch.dir / "pod", /*has_folders=*/false);
  CHECK_FALSE(service.cached_binary(pod, key('c')));
  pod.build("prog", "in a pod");
  service.store_binary(pod, key('e'), std::string(kSandboxHome) + "/prog");
  CHECK_FALSE(cache.contains(kAlice, key('e')));
}

TEST_CASE("go mod tidy needs a daemon handle whose sandbox has a host folder for the modules") {
  Scratch scratch;
  kg::test::NullLogger logger;
  TidyModuleCache modules((scratch.dir / "modules").string(), 1 << 20, logger);
  ModuleTidier tidier("/nonexistent/go", "/nonexistent/lockfile", "/nonexistent/modcache", modules,
                      (scratch.dir / "tidy").string(), logger);
  ModuleTidyHostService service(tidier);
  const std::vector<kg::plugin::SourceFile> files = {{"main.go", "package main\n"}};
  ForeignHandle foreign;
  CHECK_THROWS_AS(service.tidy_module(foreign, files, 1000), SandboxError);
  FakeCallHandle pod(kAlice, scratch.dir / "pod", /*has_folders=*/false);
  CHECK_THROWS_WITH_AS(service.tidy_module(pod, files, 1000),
                       "go mod tidy: this sandbox has no host folder at "
                       "/opt/kode-gopher/gomodcache-extra",
                       SandboxError);
  CHECK(fs::is_empty(scratch.dir / "modules"));
}

TEST_CASE("the package docs lookup builds go doc against the lockfile for curated packages only") {
  const std::vector<std::string> curated = {"cloud.google.com/go/storage", "k8s.io/client-go/kubernetes"};
  const PackageDocsLookup whole(curated, "cloud.google.com/go/storage", "");
  CHECK(whole.command().command ==
        "cd /opt/kode-gopher/lockfile && exec go doc cloud.google.com/go/storage");
  const PackageDocsLookup symbol(curated, "cloud.google.com/go/storage", "Client.Bucket");
  CHECK(symbol.command().command ==
        "cd /opt/kode-gopher/lockfile && go doc cloud.google.com/go/storage Client.Bucket; "
        "status=$?; if [ $status -ne 0 ]; then echo '@@kode-gopher names@@'; go doc -short "
        "cloud.google.com/go/storage 2>/dev/null; echo '@@kode-gopher methods@@'; go doc -short "
        "cloud.google.com/go/storage Client 2>/dev/null; fi; exit $status");
  CHECK(symbol.command().timeout_ms == 60'000);

  CHECK_THROWS_WITH_AS(PackageDocsLookup(curated, "os/exec", ""),
                       "package \"os/exec\" is not a curated package; curated packages: "
                       "cloud.google.com/go/storage, k8s.io/client-go/kubernetes",
                       kg::plugin::InvalidInputError);
  CHECK_THROWS_AS(PackageDocsLookup(curated, "cloud.google.com/go/storage; rm -rf /", ""),
                  kg::plugin::InvalidInputError);
  for (const char* bad : {"Client;id", ".Client", "Client.", "1Client", "Client..Bucket", "a b", "$(id)"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(PackageDocsLookup(curated, "cloud.google.com/go/storage", bad),
                         ("symbol \"" + std::string(bad) +
                          "\" must look like Name or Type.Method (letters, digits, '_')").c_str(),
                         kg::plugin::InvalidInputError);
  }
  CHECK_NOTHROW(PackageDocsLookup(curated, "cloud.google.com/go/storage", "_x9.Y_2"));
}

TEST_CASE("the package docs lookup answers go doc's output, or its message as invalid input") {
  const PackageDocsLookup lookup({"cloud.google.com/go/storage"}, "cloud.google.com/go/storage", "Nope");
  kg::plugin::CommandOutcome ok;
  ok.stdout_text = "package storage\n";
  CHECK(lookup.docs(ok) == "package storage\n");
  kg::plugin::CommandOutcome failed;
  failed.exit_code = 1;
  failed.stderr_text = "go: module lookup disabled by GOPROXY=off\n"
                       "doc: no symbol Nope in package cloud.google.com/go/storage\nexit status 1\n";
  failed.stdout_text = "@@kode-gopher names@@\nfunc NewClient(ctx context.Context) (*Client, error)\n"
                       "@@kode-gopher methods@@\n";
  CHECK_THROWS_WITH_AS(lookup.docs(failed),
                       "go doc cloud.google.com/go/storage Nope: doc: no symbol Nope in package "
                       "cloud.google.com/go/storage. No exported name is near it: leave symbol "
                       "out for the package's index of names",
                       kg::plugin::InvalidInputError);
}

TEST_CASE("a misspelled symbol gets the near names, a misspelled method its type's methods") {
  const std::string names =
      "@@kode-gopher names@@\n"
      "type Client struct{ ... }\n"
      "    func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error)\n"
      "    func NewGRPCClient(ctx context.Context) (*Client, error)\n"
      "type ObjectHandle struct{ ... }\n"
      "var ErrObjectNotExist = errors.New(\"storage: object doesn't exist\")\n"
      "@@kode-gopher methods@@\n";
  kg::plugin::CommandOutcome failed;
  failed.exit_code = 1;
  failed.stderr_text = std::string(40, '\n') + "go: module lookup disabled by GOPROXY=off\n"
                       "doc: no symbol NewClinet in package cloud.google.com/go/storage\n";
  failed.stdout_text = names;
  const PackageDocsLookup misspelled({"cloud.google.com/go/storage"}, "cloud.google.com/go/storage",
                                     "NewClinet");
  CHECK_THROWS_WITH_AS(misspelled.docs(failed),
                       "go doc cloud.google.com/go/storage NewClinet: doc: no symbol NewClinet in "
                       "package cloud.google.com/go/storage. Did you mean NewClient? Ask for one "
                       "of them as symbol",
                       kg::plugin::InvalidInputError);

  failed.stderr_text = "doc: no method or field Client.Bucke in package cloud.google.com/go/storage\n";
  failed.stdout_text = names +
                       "type Client struct {\n\t// Has unexported fields.\n}\n"
                       "func (c *Client) Bucket(name string) *BucketHandle\n"
                       "func (c *Client) Buckets(ctx context.Context, projectID string) *BucketIterator\n"
                       "func (c *Client) Close() error\n";
  const PackageDocsLookup method({"cloud.google.com/go/storage"}, "cloud.google.com/go/storage",
                                 "Client.Bucke");
  CHECK_THROWS_WITH_AS(method.docs(failed),
                       "go doc cloud.google.com/go/storage Client.Bucke: doc: no method or field "
                       "Client.Bucke in package cloud.google.com/go/storage. Did you mean "
                       "Client.Bucket or Client.Buckets? Ask for one of them as symbol",
                       kg::plugin::InvalidInputError);

  failed.stderr_text = "doc: no symbol Clent in package cloud.google.com/go/storage\n";
  failed.stdout_text = names;
  const PackageDocsLookup type({"cloud.google.com/go/storage"}, "cloud.google.com/go/storage",
                               "Clent.Bucket");
  CHECK_THROWS_WITH_AS(type.docs(failed),
                       "go doc cloud.google.com/go/storage Clent.Bucket: doc: no symbol Clent in "
                       "package cloud.google.com/go/storage. Did you mean Client.Bucket? Ask for "
                       "one of them as symbol",
                       kg::plugin::InvalidInputError);
}

TEST_CASE("a whole package's docs are a bounded index: synopsis, declarations, then names") {
  std::string go_doc = "package storage // import \"cloud.google.com/go/storage\"\n\n"
                       "Package storage provides an easy way to work with Google Cloud Storage.\n"
                       "Google Cloud Storage stores data in named objects.\n\n"
                       "More about authentication, at length.\n\n"
                       "    client, err := storage.NewClient(ctx)\n\n";
  for (int i = 0; i < 150; ++i) {
    go_doc += "func Function" + std::to_string(i) + "(ctx context.Context, name string) error\n";
  }
  go_doc += "type Client struct{ ... }\n    func NewClient(ctx context.Context) (*Client, error)\n";
  const PackageDocsLookup whole({"cloud.google.com/go/storage"}, "cloud.google.com/go/storage", "");
  kg::plugin::CommandOutcome ok;
  ok.stdout_text = go_doc;
  const std::string index = whole.docs(ok);
  INFO(index);
  CHECK(index.size() < 8000);
  CHECK(index.starts_with("package storage // import \"cloud.google.com/go/storage\"\n\n"
                          "Package storage provides an easy way to work with Google Cloud Storage.\n"
                          "Google Cloud Storage stores data in named objects.\n\nIndex (ask for one "
                          "symbol with the symbol argument"));
  CHECK(index.find("More about authentication") == std::string::npos);
  CHECK(index.find("func Function0(ctx context.Context, name string) error\n") != std::string::npos);
  CHECK(index.find("\nMore names: ") != std::string::npos);
  CHECK(index.find("Client, NewClient") != std::string::npos);
  CHECK(index.find("more names") == std::string::npos);  // everything named, within the bound

  for (int i = 150; i < 2000; ++i) {
    go_doc += "func Function" + std::to_string(i) + "(ctx context.Context, name string) error\n";
  }
  ok.stdout_text = go_doc;
  const std::string bounded = whole.docs(ok);
  CHECK(bounded.size() < 8000);
  CHECK(bounded.find(" more names\n") != std::string::npos);
}
