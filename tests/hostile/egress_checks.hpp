// What the hostile egress tests that run a daemon share: the allowlist they configure and the
// reading of a call's egress warnings. Tests only.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace kg::test::egress {

// [sandbox] keys: network = allowlist, the test names (egress_world.hpp) and *.googleapis.com
// on 443, 80 and the test peers' ports.
std::string allowlist_keys();

// The result's warnings but compiled-go's notice of the build path (a program importing a
// lockfile package outside the prebuilt ones is built by go build, which says so).
std::vector<std::string> warnings_of(const rapidjson::Document& result);

bool has_warning(const std::vector<std::string>& warnings, const std::string& part);

// One line each, for INFO().
std::string joined(const std::vector<std::string>& lines);

}  // namespace kg::test::egress
