// Checks one raw config value against its key's spec and converts it (plain decimal integers,
// choices, "~/"-expanded absolute paths, program names, path lists). Used by the config loader
// for every known key it finds; pure apart from reading HOME.
#pragma once

#include <stdexcept>
#include <string_view>

#include "config_keys.hpp"

namespace kg::config {

// what() is the issue text without file and key:
// must be an integer from 1 to 1024, got "0"
class InvalidConfigValue : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `raw` is the value as the INI file has it (trimmed). Throws InvalidConfigValue.
ConfigValue parse_config_value(const ConfigKeySpec& spec, std::string_view raw);

}  // namespace kg::config
