#include "mock_oidc_provider.hpp"
#include "../support/test_json.hpp"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kg::test {
namespace fs = std::filesystem;
namespace {

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  REQUIRE_MESSAGE(value != nullptr, name << " is not set (run this test through meson test)");
  return value;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `npm ci` once per lock file: the stamp holds the lock it installed.
void install(const fs::path& dir) {
  const fs::path stamp = dir / "node_modules" / ".kode-gopher-installed-lock";
  const std::string lock = file_text(dir / "package-lock.json");
  REQUIRE_FALSE(lock.empty());
  if (fs::exists(stamp) && file_text(stamp) == lock) return;
  Poco::Pipe output;
  Poco::ProcessHandle npm = Poco::Process::launch(
      required_env("KG_NPM"), {"ci", "--no-audit", "--no-fund"}, dir.string(), nullptr, &output, &output);
  Poco::PipeInputStream in(output);
  std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  INFO(log);
  REQUIRE(npm.wait() == 0);
  std::ofstream(stamp, std::ios::binary) << lock;
}

}  // namespace

MockOidcProvider::MockOidcProvider() {
  const fs::path dir = required_env("KG_TEAM_OIDC_DIR");
  install(dir);
  // The Node 22 the package installs (`node` from npm): the system's may be too old.
  const fs::path node = dir / "node_modules" / "node" / "bin" / "node";
  REQUIRE_MESSAGE(fs::exists(node), "npm ci did not install " << node.string());
  Poco::Pipe output;
  process_ = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
      node.string(), {(dir / "mock_oidc_provider.mjs").string(), "0"}, dir.string(),
      nullptr, &output, &output));
  Poco::PipeInputStream in(output);
  std::string line, seen;
  while (std::getline(in, line)) {
    const rapidjson::Document ready = test_json(line);
    if (ready.IsObject() && ready.HasMember("issuer") &&
        ready["issuer"].IsString()) {
      issuer_ = ready["issuer"].GetString();
      break;
    }
    seen += line + "\n";
  }
  INFO("the mock OIDC provider said: " << seen);
  REQUIRE_MESSAGE(!issuer_.empty(), "the mock OIDC provider did not start");
  std::cout << "mock OIDC provider: " << issuer_ << std::endl;
}

MockOidcProvider::~MockOidcProvider() {
  if (!process_) return;
  Poco::Process::requestTermination(process_->id());  // SIGINT: it stops its server and exits
  process_->wait();
}

}  // namespace kg::test
