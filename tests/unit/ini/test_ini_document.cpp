// lib/ini: what the reader keeps of each line (section, key, value, line number), which lines
// are problems and on which line, and files that cannot be read.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "../../support/temp_dir.hpp"
#include "ini_document.hpp"

namespace kg::ini {
namespace {

TEST_CASE("entries keep their section, key, trimmed value and line") {
  const auto document = parse_ini_text(
      "\xEF\xBB\xBF# comment\n; another\n\nbefore = 1\n[Daemon] # the daemon\r\n"
      "  max_sessions =  8 ; not a comment \r\n\n[limits]\noutput_bytes=2048\n",
      "/etc/kg.ini");
  CHECK(document.problems.empty());
  REQUIRE(document.entries.size() == 3);
  CHECK(document.entries[0].section == "");
  CHECK(document.entries[0].key == "before");
  CHECK(document.entries[0].line == 4);
  CHECK(document.entries[1].section == "Daemon");
  CHECK(document.entries[1].key == "max_sessions");
  CHECK(document.entries[1].value == "8 ; not a comment");
  CHECK(document.entries[1].line == 6);
  CHECK(document.entries[2].value == "2048");
  CHECK(document.entries[2].line == 9);
  CHECK(document.sections == std::vector<std::string>{"Daemon", "limits"});
  CHECK(document.location_of(document.entries[1]).to_string() == "/etc/kg.ini:6");
}

TEST_CASE("find compares names case-insensitively and the last of a repeated key wins") {
  const auto document =
      parse_ini_text("[daemon]\nsocket = /a\n[DAEMON]\nSocket = /b\n", "kg.ini");
  const IniEntry* entry = document.find("daemon", "socket");
  REQUIRE(entry != nullptr);
  CHECK(entry->value == "/b");
  CHECK(entry->line == 4);
  CHECK(document.find("daemon", "state_dir") == nullptr);
  CHECK(document.find("", "socket") == nullptr);
  CHECK(document.sections == std::vector<std::string>{"daemon"});
}

TEST_CASE("malformed lines are problems with their line numbers and yield no entry") {
  const auto document =
      parse_ini_text("[daemon\nmax_sessions = 2\ngarbage\n= 5\n[]\n[limits] extra\nx = 1\n",
                     "kg.ini");
  std::vector<std::string> rendered;
  for (const auto& problem : document.problems) {
    rendered.push_back(std::to_string(problem.line) + ": " + problem.message);
  }
  CHECK(rendered == std::vector<std::string>{
                        "1: section header \"[daemon\" has no closing \"]\"",
                        "3: expected \"key = value\", got \"garbage\"",
                        "4: \"= 5\" has no key before \"=\"",
                        "5: section header \"[]\" has no name",
                        "6: unexpected text after the section header \"[limits]\"",
                    });
  // Keys after a malformed header belong to it, not to the section before.
  REQUIRE(document.entries.size() == 2);
  CHECK(document.entries[0].section == "daemon");
  CHECK(document.entries[0].line == 2);
  CHECK(document.entries[1].section == "limits");
  CHECK(document.entries[1].line == 7);
}

TEST_CASE("a file that cannot be read is one problem about the whole file") {
  kg::test::TempDir dir("kg-ini-test-");
  const auto directory = read_ini_file(dir.path());
  REQUIRE(directory.problems.size() == 1);
  CHECK(directory.problems[0].line == 0);
  CHECK(directory.problems[0].message == "is a directory, not a config file");
  CHECK(SourceLocation{dir.path(), 0}.to_string() == dir.path());

  const auto missing = read_ini_file(dir / "missing.ini");
  REQUIRE(missing.problems.size() == 1);
  CHECK(missing.problems[0].message == "cannot be read: No such file or directory");

  std::ofstream(dir / "kg.ini") << "[sandbox]\nprovider = k8s\n";
  const auto file = read_ini_file(dir / "kg.ini");
  CHECK(file.problems.empty());
  REQUIRE(file.find("sandbox", "provider") != nullptr);
  CHECK(file.location_of(*file.find("sandbox", "provider")).to_string() == dir / "kg.ini" + ":2");
}

}  // namespace
}  // namespace kg::ini
