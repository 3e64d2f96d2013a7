// GET /metrics on the Unix socket and on team mode's HTTP listener: the daemon's numbers in
// Prometheus' text format (docs/metrics.md). Calls and sessions come from SQLite, so the
// counters count every call since the state dir was made and survive restarts; the rest is
// read live. Aggregates only: no user, session or program is named.
#pragma once

#include <string>

#include "api_context.hpp"

namespace kg::api {

std::string metrics_text(ApiContext& context);

}  // namespace kg::api
