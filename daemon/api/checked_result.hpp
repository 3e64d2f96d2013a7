// The daemon's own check of what a runtime plugin hands back before it goes into an answer: every
// string in a call's result came from a sandbox, so a plugin that passed on text that is not
// UTF-8, or a result that nests deeper than the bound, must not turn into an answer no JSON
// parser takes, or into a recursive write. The compiled-go plugin already hands over clean text;
// this is what holds for any runtime. Pure; called from API threads.
#pragma once

#include "runtime_plugin.hpp"

namespace kg::api {

// `result` with stdout, stderr, diagnostics, warnings and result_json made valid UTF-8 (each
// invalid byte becomes U+FFFD), result_json rewritten by json::clean_json (compact,
// at most kMaxResultDepth levels; dropped when it is not JSON or nests deeper), and one warning
// for each field that had to change. Throws only std::bad_alloc.
plugin::ExecuteResult checked_for_response(plugin::ExecuteResult result);

}  // namespace kg::api
