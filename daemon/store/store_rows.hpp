// How SessionRecord and CallRecord map to rows: the column lists every SELECT of them uses and
// the readers that turn a stepped statement into a record, kept side by side so a column
// cannot be added to one and forgotten in the other. Used by the Store's methods.
#pragma once

#include <string_view>

#include "sqlite_statement.hpp"
#include "store.hpp"

namespace kg::store {

// For "SELECT <kSessionColumns> FROM sessions s ..." (includes the computed call count).
inline constexpr std::string_view kSessionColumns =
    "s.id, s.client, s.provider, s.sandbox_id, s.runtime, s.state, s.opened_at, s.closed_at, "
    "s.close_reason, (SELECT COUNT(*) FROM calls c WHERE c.session_id = s.id), "
    "(SELECT g.identity FROM credential_grants g WHERE g.session_id = s.id "
    "ORDER BY g.id DESC LIMIT 1), s.owner, s.owner_email, "
    "(SELECT COUNT(*) FROM api_calls a WHERE a.session_id = s.id), "
    "(SELECT COUNT(*) FROM api_calls a WHERE a.session_id = s.id AND a.refused_rule IS NOT NULL)";

// For "SELECT <kCallColumns> FROM calls ...".
inline constexpr std::string_view kCallColumns =
    "id, session_id, runtime, mode, phase, status, state, exit_code, queue_ms, setup_ms, "
    "build_ms, run_ms, total_ms, cache_hit, tidied, code_sha256, input_bytes, output_bytes, "
    "created_at, finished_at, error_message, runtime_reason, api_calls_dropped";

SessionRecord read_session_row(const SqliteStatement& row);
CallRecord read_call_row(const SqliteStatement& row);

}  // namespace kg::store
