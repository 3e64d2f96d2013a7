// Lists as config values and OAuth answers spell them: scopes, service-account chains.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kg::google_oauth {

// The items of `text` separated by commas, spaces or tabs; empty items dropped.
std::vector<std::string> split_words(std::string_view text);
// The items joined by `separator` (" " for an OAuth scope parameter, "," for metadata scopes).
std::string join_words(const std::vector<std::string>& items, std::string_view separator);

}  // namespace kg::google_oauth
