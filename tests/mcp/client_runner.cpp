#include "client_runner.hpp"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "daemon_fixture.hpp"

namespace kg::test {
namespace fs = std::filesystem;

namespace {

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CommandOutcome run_command(const std::string& program, const std::vector<std::string>& args,
                           const std::string& directory,
                           const std::map<std::string, std::string>& env) {
  std::cout << "$ " << program;
  for (const auto& arg : args) {
    std::cout << ' ' << (arg.size() > 80 ? arg.substr(0, 77) + "..." : arg);
  }
  std::cout << std::endl;
  Poco::Pipe output;
  Poco::Process::Env environment(env.begin(), env.end());
  Poco::ProcessHandle handle = Poco::Process::launch(
      program, Poco::Process::Args(args.begin(), args.end()), directory, nullptr, &output, &output,
      environment);
  CommandOutcome outcome;
  Poco::PipeInputStream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::cout << line << '\n';
    outcome.output += line + '\n';
  }
  std::cout.flush();
  outcome.exit_code = handle.wait();
  return outcome;
}

void install_node_package(const std::string& package_dir) {
  const fs::path dir = package_dir;
  const fs::path stamp = dir / "node_modules" / ".kode-gopher-installed-lock";
  const std::string lock = file_text(dir / "package-lock.json");
  REQUIRE_FALSE(lock.empty());
  if (!fs::exists(stamp) || file_text(stamp) != lock) {
    const CommandOutcome install =
        run_command(required_env("KG_NPM"), {"ci", "--no-audit", "--no-fund"}, dir.string());
    INFO(install.output);
    REQUIRE(install.exit_code == 0);
    std::ofstream(stamp, std::ios::binary) << lock;
  }
}

std::string install_node_clients() {
  const fs::path dir = required_env("KG_MCP_NODE_DIR");
  install_node_package(dir.string());
  const fs::path node = dir / "node_modules" / "node" / "bin" / "node";
  REQUIRE(fs::exists(node));
  return node.string();
}

std::vector<std::string> curated_packages() {
  std::ifstream file(required_env("KG_CURATED_GO"));
  REQUIRE(file.good());
  const std::regex blank_import(R"re(^\s*_\s+"([^"]+)"\s*$)re");
  std::vector<std::string> packages;
  std::string line;
  std::smatch match;
  while (std::getline(file, line)) {
    if (std::regex_match(line, match, blank_import)) packages.push_back(match[1]);
  }
  REQUIRE(packages.size() == 12);
  return packages;
}

std::map<std::string, std::string> client_env(const std::string& config_path,
                                              const std::string& socket_path) {
  return {
      {"KG_CLI", required_env("KG_CLI")},
      {"KG_MCP_CONFIG", config_path},
      {"KG_DAEMON_SOCKET", socket_path},
      {"KG_CURATED_GO", required_env("KG_CURATED_GO")},
  };
}

}  // namespace kg::test
