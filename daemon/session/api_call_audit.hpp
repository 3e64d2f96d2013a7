// A call's audit of Google API requests (docs/api-policy.md, "The audit"): what the egress proxy
// reported at the end of one run (EgressCallReport::exchanges) classified into store records,
// the warnings its refusals become, and the bounded list and totals a result carries as
// `api_calls`. Pure functions; the session layer records the records and fills the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api_policy.hpp"
#include "egress_call.hpp"
#include "store/store.hpp"

namespace kg::session {

// What a result says of its call's API requests beyond the listed ones.
struct ApiCallTotals {
  std::uint64_t count = 0;    // requests the proxy read: listed, unlisted and dropped by it
  std::uint64_t refused = 0;  // of the ones it reported
  std::uint64_t bytes = 0;    // request and response body bytes of the ones it reported
  std::uint64_t dropped = 0;  // not in the result's list (the store keeps all it reported)
};

struct AuditedRun {
  std::vector<store::ApiCallRecord> records;  // one per reported exchange, in order
  std::uint64_t dropped_by_proxy = 0;         // past EgressCallReport::kMaxKeptExchanges
  std::vector<std::string> warnings;          // the refusals, a few, then how many more
};

// The result lists at most this many requests; refused ones first claim the room.
inline constexpr std::size_t kMaxResultApiCalls = 50;
// Refusal warnings per run before "... and N more".
inline constexpr std::size_t kMaxRefusalWarnings = 5;

// Classifies every exchange of `report` (the rule of a refusal is found again by deciding on
// the same request with `policy`; a refusal no rule explains is the proxy's own: "proxy").
AuditedRun audit_egress_report(const sandbox::EgressCallReport& report,
                               const api_policy::CallApiPolicy& policy, std::int64_t call_id,
                               const std::string& session_id);

// Adds a run's records to a result's bounded list and totals (a call with runtime auto may
// have two runs).
void add_to_result(const AuditedRun& run, std::vector<store::ApiCallRecord>& listed,
                   ApiCallTotals& totals);

}  // namespace kg::session
