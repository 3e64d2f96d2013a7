// Reads an INI file into a Poco::Util::IniFileConfiguration, after doing what Poco does not:
// refusing what is not a readable regular file (Poco loops forever on a directory), reporting
// malformed lines with their line numbers (Poco silently turns them into keys), and accepting
// '#' comments (Poco knows only ';'). Used by the config loader; no shared state.
#pragma once

#include <Poco/AutoPtr.h>
#include <Poco/Util/IniFileConfiguration.h>

#include <string>
#include <vector>

#include "daemon_config.hpp"

namespace kg::config {

struct IniFile {
  // Null when the file could not be read at all; then `issues` says why.
  Poco::AutoPtr<Poco::Util::IniFileConfiguration> values;
  std::vector<ConfigIssue> issues;  // errors, each "line N: ..." or about the whole file
};

// Never throws for problems with the file itself; they become issues.
IniFile read_ini_file(const std::string& path);

}  // namespace kg::config
