// SQLite storage of every session and call (WAL, schema version in PRAGMA user_version with
// ordered migrations). Owned by the daemon's Instance; every method is thread-safe (one
// connection, serialized by a mutex). Every method throws StoreError with the SQL context.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct sqlite3;

namespace kg::store {

class StatementCache;

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SessionRecord {
  std::string id;
  std::string client;      // "cli", "mcp", ...
  std::string provider;    // "local", "kubernetes"
  std::string sandbox_id;  // empty until a sandbox is attached
  std::string runtime;
  std::string state;       // open | closed | interrupted
  std::string opened_at;   // RFC 3339 UTC, set by the store
  std::string closed_at;   // empty while open
  std::string close_reason;
  std::int64_t calls = 0;  // number of calls recorded for it (computed)
  std::string identity;    // who its newest credentialed call ran as (computed); empty: none
  std::int64_t api_calls = 0;          // Google API requests its calls made (computed)
  std::int64_t api_calls_refused = 0;  // of those, refused by the proxy (computed)
  // Team mode: the signed-in user it belongs to (stable id, and email); empty for sessions of
  // the Unix-socket API.
  std::string owner;
  std::string owner_email;
};

// An access token handed to a sandbox for one call (the token itself is never stored).
struct GrantRecord {
  std::int64_t id = 0;  // set by the store
  std::string session_id;
  std::int64_t call_id = 0;
  std::string plugin;           // creds-adc | creds-workload
  std::string mode;             // access-token | forwarded | workload
  std::string identity;         // the email, else the credential type and its source
  std::string credential_type;  // authorized_user | service_account | ...
  std::string scopes;           // space-separated
  std::string expires_at;       // RFC 3339 UTC
  std::string granted_at;       // RFC 3339 UTC, set by the store
};

// One Google API request the egress proxy read during a call, classified (docs/egress.md,
// "The audit"). Also the entries of a result's api_calls.
struct ApiCallRecord {
  std::int64_t id = 0;  // set by the store
  std::int64_t call_id = 0;
  std::string session_id;
  std::string host, http_method;
  bool grpc = false;
  std::string service, method, resource, project, billing_project;
  std::string buckets;  // ','-separated
  bool read = false;
  int http_status = 0;
  int grpc_status = -1;      // -1: none came
  std::string refused_rule;  // empty: forwarded; else read_only | buckets | projects | proxy
  std::string refusal;       // the message the program got
  std::uint64_t request_bytes = 0, response_bytes = 0, duration_us = 0;
  std::string recorded_at;  // RFC 3339 UTC, set by the store
};

struct CallStart {
  std::string session_id;
  std::string runtime;
  std::string code_sha256;
  std::uint64_t input_bytes = 0;
  std::string action = "run";  // run | test | vet
};

struct CallOutcome {
  std::string mode;    // wrapped | verbatim
  std::string phase;   // setup | build | run
  std::string status;  // ok | compile_error | ... | internal
  int exit_code = 0;
  std::uint64_t queue_ms = 0, setup_ms = 0, build_ms = 0, run_ms = 0, total_ms = 0;
  bool cache_hit = false;
  bool tidied = false;
  std::uint64_t output_bytes = 0;
  std::string error_message;  // for calls that ended in an API error instead of a result
  std::string runtime;         // the runtime that ran it, when known (replaces the requested one)
  std::string runtime_reason;  // with auto: why that runtime
};

struct CallRecord {
  std::int64_t id = 0;
  std::string session_id, runtime, mode, phase, status;
  std::string state;  // running | done | interrupted
  int exit_code = 0;
  std::uint64_t queue_ms = 0, setup_ms = 0, build_ms = 0, run_ms = 0, total_ms = 0;
  bool cache_hit = false, tidied = false;
  std::string code_sha256;
  std::uint64_t input_bytes = 0, output_bytes = 0;
  std::string created_at, finished_at, error_message;
  std::string runtime_reason;
  std::uint64_t api_calls_dropped = 0;  // API requests past the egress proxy's bound
};

struct TimingStat {
  std::string runtime;
  std::string metric;  // queue_ms | setup_ms | build_ms | run_ms | total_ms
  std::int64_t count = 0;
  std::uint64_t p50 = 0, p95 = 0;  // nearest-rank percentiles over finished calls
};

struct Stats {
  std::int64_t open_sessions = 0, total_sessions = 0, total_calls = 0;
  std::map<std::string, std::int64_t> calls_by_status;
  std::vector<TimingStat> timings;  // ordered by runtime, then metric in the order above
};

// The numbers behind /metrics (docs/metrics.md): every finished call since the state dir was
// made, so the counters survive restarts and never go down.
struct CallCount {
  std::string runtime, status, phase;
  std::uint64_t count = 0;
};
struct CallDurations {  // one runtime's finished calls, total_ms in the buckets of kDurationBucketsMs
  std::string runtime;
  std::vector<std::uint64_t> cumulative;  // calls with total_ms <= each bucket's bound
  std::uint64_t count = 0;
  std::uint64_t sum_ms = 0;
};
inline const std::vector<std::uint64_t> kDurationBucketsMs = {
    10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000};
// Audited Google API requests (the api_calls table) of one service and verdict.
struct ApiCallCount {
  std::string service;  // the first kMaxApiServiceLabels services seen; later ones kOtherService
  std::string rule;     // empty: forwarded; else the rule that refused it
  std::uint64_t count = 0;
};
inline constexpr std::size_t kMaxApiServiceLabels = 50;
inline constexpr std::string_view kOtherService = "_other";
struct CallMetrics {
  std::vector<CallCount> finished;  // by runtime, status and phase
  std::vector<CallDurations> durations;  // by runtime
  std::uint64_t running_calls = 0;
  std::uint64_t open_sessions = 0;
  std::uint64_t interrupted_calls = 0;  // cut off by a daemon stop (reconcile_after_crash)
  std::uint64_t users_with_open_sessions = 0;  // team mode: distinct owners; 0 without it
  std::vector<std::pair<std::string, std::uint64_t>> egress_refusals;  // by reason, ordered
  std::vector<ApiCallCount> api_calls;  // by service, then rule
};

struct ReconcileReport {
  std::vector<SessionRecord> interrupted_sessions;  // were open; now 'interrupted' and closed
  std::int64_t interrupted_calls = 0;               // were running; now 'interrupted'
};

// Team mode's authorization server (daemon/team/oauth, store_oauth.cpp). Times: Unix seconds.
struct OAuthClientRecord {  // registered by RFC 7591 dynamic client registration
  std::string client_id;
  std::string client_name;
  std::vector<std::string> redirect_uris;
  std::int64_t created_at = 0;
  std::int64_t last_used_at = 0;  // when a sign-in through it last issued a code; 0 never
  std::int64_t sign_in_started_at = 0;  // when /oauth/authorize last accepted it; 0 never
};

struct OAuthUserRecord {  // one signed-in user and their upstream provider's tokens, sealed
  std::string user_id;    // <issuer>#<sub>
  std::string email;
  std::string sealed_refresh_token;  // "" when the provider gave none
  std::string sealed_access_token;
  std::int64_t access_token_expires = 0;
  std::string scopes;  // of the upstream access token, space-separated
  std::int64_t updated_at = 0;
};

struct OAuthCodeRecord {  // an authorization code we issued, by its SHA-256
  std::string code_hash, client_id, redirect_uri, code_challenge, resource, scope, user_id;
  std::string family_id;
  std::int64_t expires_at = 0;
  bool redeemed = false;
};

struct OAuthTokenRecord {  // an access or refresh token we issued, by its SHA-256
  std::string token_hash;
  std::string kind;  // access | refresh
  std::string family_id, user_id, client_id, resource, scope;
  std::int64_t expires_at = 0;
  std::string state;  // active | consumed | revoked
};

class Store {
 public:
  // Opens (creating if needed) the database file and migrates it to the newest schema.
  explicit Store(const std::string& db_path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int schema_version();

  void insert_session(const SessionRecord& session);  // opened_at and state set here
  void attach_sandbox(const std::string& session_id, const std::string& sandbox_id);
  // state: closed | interrupted. Closing a closed session changes nothing.
  void close_session(const std::string& session_id, const std::string& state,
                     const std::string& reason);
  std::optional<SessionRecord> find_session(const std::string& session_id);
  std::vector<SessionRecord> list_sessions(bool include_closed, std::size_t limit);

  std::int64_t begin_call(const CallStart& call);  // state 'running'; returns the call id
  void finish_call(std::int64_t call_id, const CallOutcome& outcome);  // state 'done'
  // A call the daemon's own shutdown stopped: state 'interrupted', with what is known of it.
  void interrupt_call(std::int64_t call_id, const CallOutcome& outcome);
  std::optional<CallRecord> find_call(std::int64_t call_id);
  std::vector<CallRecord> list_calls(const std::string& session_id);

  // A call's audited API requests, all in one transaction, and how many the proxy dropped past
  // its bound (added to the call's count: a call with runtime auto may run twice).
  void record_api_calls(std::int64_t call_id, const std::vector<ApiCallRecord>& records,
                        std::uint64_t dropped);
  std::vector<ApiCallRecord> list_api_calls(std::int64_t call_id);  // in the order recorded
  // The first `limit` audited API requests of a session's calls, in the order recorded (GET
  // /v1/sessions/{id}/api_calls; the session's SessionRecord counts them all).
  std::vector<ApiCallRecord> list_session_api_calls(const std::string& session_id,
                                                    std::size_t limit);
  // Adds a call's egress refusals by kind (a call with runtime auto may run twice).
  void record_egress_refusals(std::int64_t call_id,
                              const std::map<std::string, std::uint64_t>& counts);

  void record_grant(const GrantRecord& grant);  // granted_at set here
  std::vector<GrantRecord> list_grants(const std::string& session_id);

  // After a crash: every open session becomes 'interrupted' (closed, reason "daemon stopped
  // unexpectedly") and every running call 'interrupted'. Returns what it changed.
  ReconcileReport reconcile_after_crash();

  Stats stats();
  CallMetrics call_metrics();

  // Team mode's OAuth rows (store_oauth.cpp).
  // Registers the client unless `max_unused` registrations no sign-in has used are waiting
  // already (false then); first drops, as of client.created_at, those unused for longer than
  // `unused_ttl_s` and those no sign-in started with for longer than `unstarted_ttl_s`.
  bool insert_oauth_client(const OAuthClientRecord& client, std::int64_t max_unused,
                           std::int64_t unused_ttl_s, std::int64_t unstarted_ttl_s);
  std::optional<OAuthClientRecord> find_oauth_client(const std::string& client_id);
  // /oauth/authorize accepted the client at `now`: it is past the short wait of registrations
  // nobody started a sign-in with.
  void mark_oauth_client_sign_in_started(const std::string& client_id, std::int64_t now);
  // A sign-in through the client issued a code at `now`: its registration is kept from then on.
  void mark_oauth_client_used(const std::string& client_id, std::int64_t now);
  // Inserts or replaces the user; an empty sealed_refresh_token keeps the one stored (a
  // provider may not send a new refresh token on every sign-in or refresh).
  void save_oauth_user(const OAuthUserRecord& user);
  std::optional<OAuthUserRecord> find_oauth_user(const std::string& user_id);
  void insert_oauth_code(const OAuthCodeRecord& code);
  // Marks the code redeemed and returns it as it was before (redeemed true: a replay).
  std::optional<OAuthCodeRecord> redeem_oauth_code(const std::string& code_hash);
  // All in one transaction (an access and a refresh token are issued together).
  void insert_oauth_tokens(const std::vector<OAuthTokenRecord>& tokens);
  std::optional<OAuthTokenRecord> find_oauth_token(const std::string& token_hash);
  // A refresh token's rotation: active -> consumed, atomically; returns the row as it was
  // before (state consumed or revoked then: a reuse). nullopt when unknown or not a refresh token.
  std::optional<OAuthTokenRecord> consume_oauth_refresh_token(const std::string& token_hash);
  // Every token of the family becomes revoked; returns how many changed.
  std::int64_t revoke_oauth_family(const std::string& family_id);
  // Deletes tokens that expired before `now`, and codes a day after their expiry.
  void purge_expired_oauth(std::int64_t now);

 private:
  void end_call(std::int64_t call_id, const CallOutcome& outcome, const char* state);

  std::mutex mutex_;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::unique_ptr<StatementCache> statements_;  // for the statements of every call
};

}  // namespace kg::store
