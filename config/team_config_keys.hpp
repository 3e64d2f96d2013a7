// The team-mode config keys ([http], [oauth], [team]); part of config_key_specs().
#pragma once

#include <span>

#include "config_keys.hpp"

namespace kg::config {

std::span<const ConfigKeySpec> team_config_key_specs();

}  // namespace kg::config
