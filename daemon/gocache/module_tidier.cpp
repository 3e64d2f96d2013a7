#include "module_tidier.hpp"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "remove_tree.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The host's GOPROXY list minus entries that would let tidy run VCS tools or give up.
std::string upstream_proxy_from_environment() {
  const char* value = std::getenv("GOPROXY");
  std::string list = (value && *value) ? value : "https://proxy.golang.org";
  std::string kept;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find_first_of(",|", start);
    if (end == std::string::npos) end = list.size();
    const auto entry = list.substr(start, end - start);
    if (!entry.empty() && entry != "direct" && entry != "off") kept += (kept.empty() ? "" : ",") + entry;
    start = end + 1;
  }
  return kept.empty() ? "https://proxy.golang.org" : kept;
}

// module -> version of every requirement in a go.mod (single-line and block forms).
std::map<std::string, std::string> requirements(const std::string& go_mod) {
  std::map<std::string, std::string> found;
  std::istringstream lines(go_mod);
  std::string line;
  bool in_block = false;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first, second, third;
    words >> first >> second >> third;
    if (in_block) {
      if (first == ")") in_block = false;
      else if (!first.empty() && !second.empty() && first != "//") found[first] = second;
    } else if (first == "require" && second == "(") {
      in_block = true;
    } else if (first == "require" && !third.empty()) {
      found[second] = third;
    }
  }
  return found;
}

}  // namespace

std::vector<std::string> moved_versions(const std::string& before, const std::string& after) {
  std::vector<std::string> moved;
  const auto old_versions = requirements(before);
  for (const auto& [module, version] : requirements(after)) {
    auto it = old_versions.find(module);
    if (it != old_versions.end() && it->second != version) {
      moved.push_back("go mod tidy moved " + module + " from " + it->second + " to " + version);
    }
  }
  return moved;
}

ModuleTidier::ModuleTidier(std::string go_binary, std::string lockfile_dir,
                           std::string base_modcache, TidyModuleCache& modules,
                           std::string work_root, plugin::Logger& logger)
    : go_binary_(std::move(go_binary)),
      lockfile_dir_(std::move(lockfile_dir)),
      base_modcache_(std::move(base_modcache)),
      modules_(modules),
      work_root_(std::move(work_root)),
      upstream_proxy_(upstream_proxy_from_environment()),
      logger_(logger) {
  fs::create_directories(work_root_);
}

plugin::TidyOutcome ModuleTidier::tidy(std::string_view owner,
                                       std::span<const plugin::SourceFile> files,
                                       std::uint32_t timeout_ms, const std::string& link_folder) {
  if (stopping_) throw plugin::SandboxError("The daemon is stopping; it runs no go mod tidy");
  const TidyModuleCache::Use in_use(modules_);  // nothing is evicted until the links are made
  std::string modcache;
  try {
    modcache = modules_.owner_modcache(owner);
  } catch (const std::exception&) {
    std::throw_with_nested(plugin::SandboxError("Cannot prepare go mod tidy's module cache"));
  }
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const fs::path work = fs::path(work_root_) / ("tidy-" + std::to_string(rng()));
  struct Cleanup {
    fs::path dir;
    ~Cleanup() { remove_tree(dir.string()); }
  } cleanup{work};
  try {
    for (const auto& file : files) {  // paths were validated by the runtime's normalizer
      const auto target = work / file.path;
      fs::create_directories(target.parent_path());
      std::ofstream(target, std::ios::binary) << file.content;
    }
    fs::copy_file(fs::path(lockfile_dir_) / "go.mod", work / "go.mod", fs::copy_options::overwrite_existing);
    fs::copy_file(fs::path(lockfile_dir_) / "go.sum", work / "go.sum", fs::copy_options::overwrite_existing);
  } catch (const std::exception&) {
    std::throw_with_nested(plugin::SandboxError("Cannot prepare go mod tidy in " + work.string()));
  }
  Poco::Process::Env env;
  env["GOMODCACHE"] = modcache;
  // `|`, not `,`: go falls through a `,` only when a proxy knows nothing of the whole query, but
  // for an import such as cloud.google.com/go/pubsub/v2 the curated modules answer with their
  // cloud.google.com/go, which lacks the package, and tidy gave up before asking upstream.
  env["GOPROXY"] = "file://" + base_modcache_ + "/cache/download|" + upstream_proxy_;
  env["GOFLAGS"] = "-mod=mod -modcacherw";
  env["GOTOOLCHAIN"] = "local";
  env["GOWORK"] = "off";
  env["GOENV"] = "off";
  env["CGO_ENABLED"] = "0";
  env["GOCACHE"] = work_root_ + "/gocache";
  Poco::Pipe output;
  auto process = Poco::Process::launch(go_binary_, {"mod", "tidy"}, work.string(), nullptr, &output,
                                       &output, env);
  const pid_t pid = process.id();
  std::string text;
  std::thread reader([&] {
    Poco::PipeInputStream in(output);
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  bool timed_out = false, stopped = false;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    stopped = stopping_;
    if (stopped || std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = !stopped;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  reader.join();
  if (stopped) throw plugin::SandboxError("The daemon is stopping; go mod tidy was stopped");
  plugin::TidyOutcome outcome;
  outcome.output = timed_out ? "go mod tidy took longer than " + std::to_string(timeout_ms) +
                                   " ms and was stopped\n" + text
                             : text;
  outcome.ok = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (outcome.ok) {
    outcome.go_mod = read_text(work / "go.mod");
    outcome.go_sum = read_text(work / "go.sum");
    outcome.moved = moved_versions(read_text(fs::path(lockfile_dir_) / "go.mod"), outcome.go_mod);
    if (!link_folder.empty()) {
      try {
        modules_.link_for(owner, outcome.go_sum, link_folder);
      } catch (const std::exception&) {
        std::throw_with_nested(plugin::SandboxError("Cannot hand the tidied modules to the sandbox"));
      }
    }
  }
  logger_.log(plugin::LogLevel::info, std::string("go mod tidy ") + (outcome.ok ? "succeeded" : "failed"));
  return outcome;
}

}  // namespace kg::sandbox
