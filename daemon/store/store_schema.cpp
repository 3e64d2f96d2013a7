#include "store_schema.hpp"

#include "sqlite_statement.hpp"
#include "store.hpp"

namespace kg::store {
namespace {

// Plain CREATE (no IF NOT EXISTS): running a migration twice is a bug that must fail loudly.
constexpr std::string_view kMigrations[] = {
    // 1: sessions and calls.
    R"sql(
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY NOT NULL,
  client       TEXT NOT NULL,
  provider     TEXT NOT NULL,
  sandbox_id   TEXT,
  runtime      TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('open', 'closed', 'interrupted')),
  opened_at    TEXT NOT NULL,
  closed_at    TEXT,
  close_reason TEXT
);
-- list_sessions (open ones, newest first), reconcile_after_crash, stats.open_sessions
CREATE INDEX sessions_by_state_opened ON sessions (state, opened_at);
-- list_sessions with closed ones, newest first
CREATE INDEX sessions_by_opened ON sessions (opened_at);

CREATE TABLE calls (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id    TEXT NOT NULL REFERENCES sessions (id),
  runtime       TEXT NOT NULL,
  mode          TEXT,
  phase         TEXT,
  status        TEXT,
  state         TEXT NOT NULL CHECK (state IN ('running', 'done', 'interrupted')),
  exit_code     INTEGER,
  queue_ms      INTEGER NOT NULL DEFAULT 0,
  setup_ms      INTEGER NOT NULL DEFAULT 0,
  build_ms      INTEGER NOT NULL DEFAULT 0,
  run_ms        INTEGER NOT NULL DEFAULT 0,
  total_ms      INTEGER NOT NULL DEFAULT 0,
  cache_hit     INTEGER NOT NULL DEFAULT 0 CHECK (cache_hit IN (0, 1)),
  tidied        INTEGER NOT NULL DEFAULT 0 CHECK (tidied IN (0, 1)),
  code_sha256   TEXT NOT NULL,
  input_bytes   INTEGER NOT NULL DEFAULT 0,
  output_bytes  INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  finished_at   TEXT,
  error_message TEXT
);
-- list_calls, the per-session call count, and the foreign key check
CREATE INDEX calls_by_session ON calls (session_id);
-- reconcile_after_crash (state = 'running') and stats (state = 'done', grouped by runtime)
CREATE INDEX calls_by_state_runtime ON calls (state, runtime);
)sql",
    // 2: every access token handed to a sandbox: whose, for what, until when. Never the token.
    R"sql(
CREATE TABLE credential_grants (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id      TEXT NOT NULL REFERENCES sessions (id),
  call_id         INTEGER NOT NULL REFERENCES calls (id),
  plugin          TEXT NOT NULL,
  mode            TEXT NOT NULL,
  identity        TEXT NOT NULL,
  credential_type TEXT NOT NULL,
  scopes          TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  granted_at      TEXT NOT NULL
);
-- list_grants, and the identity a session ran as (its newest grant)
CREATE INDEX credential_grants_by_session ON credential_grants (session_id, id);
)sql",
    // 3: runtime auto. calls.runtime is what was asked for while the call runs and the runtime
    // that ran it once it ended; runtime_reason says why auto chose it.
    R"sql(
ALTER TABLE calls ADD COLUMN runtime_reason TEXT;
)sql",
    // 4: team mode. A session opened over HTTP belongs to the signed-in user: owner is their
    // stable id (issuer#subject, or "local"), owner_email who they are. Empty for sessions of
    // the Unix-socket API, which belong to the daemon's own user.
    R"sql(
ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN owner_email TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_by_owner ON sessions (owner, state);
)sql",
    // 5: team mode's authorization server (daemon/team/oauth). Our own codes and tokens are kept
    // only as SHA-256 hashes; the upstream provider's tokens only sealed (AES-256-GCM). Times
    // are Unix seconds, compared in SQL.
    R"sql(
CREATE TABLE oauth_clients (
  client_id     TEXT PRIMARY KEY NOT NULL,
  client_name   TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,  -- one per line
  created_at    INTEGER NOT NULL
);
CREATE TABLE oauth_users (
  user_id                TEXT PRIMARY KEY NOT NULL,  -- <issuer>#<sub>
  email                  TEXT NOT NULL,
  sealed_refresh_token   TEXT,
  sealed_access_token    TEXT,
  access_token_expires   INTEGER NOT NULL DEFAULT 0,
  scopes                 TEXT NOT NULL DEFAULT '',
  updated_at             INTEGER NOT NULL
);
CREATE TABLE oauth_codes (
  code_hash      TEXT PRIMARY KEY NOT NULL,
  client_id      TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource       TEXT NOT NULL,
  scope          TEXT NOT NULL,
  user_id        TEXT NOT NULL REFERENCES oauth_users (user_id),
  family_id      TEXT NOT NULL,  -- the tokens redeeming it issues, revoked if it is replayed
  expires_at     INTEGER NOT NULL,
  redeemed       INTEGER NOT NULL DEFAULT 0 CHECK (redeemed IN (0, 1))
);
CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  family_id  TEXT NOT NULL,
  user_id    TEXT NOT NULL REFERENCES oauth_users (user_id),
  client_id  TEXT NOT NULL,
  resource   TEXT NOT NULL,
  scope      TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('active', 'consumed', 'revoked'))
);
-- revoking a family (refresh token reuse, code replay)
CREATE INDEX oauth_tokens_by_family ON oauth_tokens (family_id);
-- purging expired rows
CREATE INDEX oauth_tokens_by_expiry ON oauth_tokens (expires_at);
CREATE INDEX oauth_codes_by_expiry ON oauth_codes (expires_at);
)sql",
    // 6: dynamic registration is open to anyone, so a registration no sign-in ever used is
    // dropped after a day and only so many may wait at once (team/oauth/client_registration.cpp).
    // last_used_at: when a sign-in through the client last issued a code; 0 never. Clients
    // registered before this migration count as used: they are kept.
    R"sql(
ALTER TABLE oauth_clients ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
UPDATE oauth_clients SET last_used_at = created_at;
CREATE INDEX oauth_clients_unused ON oauth_clients (last_used_at, created_at);
)sql",
    // 7: a registration nobody starts a sign-in with (GET /oauth/authorize) is dropped after ten
    // minutes (team/oauth/client_registration.cpp). sign_in_started_at: when /oauth/authorize
    // last accepted the client; 0 never. Clients registered before count as started: kept.
    R"sql(
ALTER TABLE oauth_clients ADD COLUMN sign_in_started_at INTEGER NOT NULL DEFAULT 0;
UPDATE oauth_clients SET sign_in_started_at = created_at;
)sql",
    // 8: the audit of Google API requests (docs/api-policy.md, "The audit"): one row per request
    // the egress proxy read and forwarded or refused during a call, classified. Every row the
    // proxy reports is kept; calls.api_calls_dropped counts those past the proxy's bound.
    R"sql(
CREATE TABLE api_calls (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  call_id         INTEGER NOT NULL REFERENCES calls (id),
  session_id      TEXT NOT NULL REFERENCES sessions (id),
  host            TEXT NOT NULL,
  http_method     TEXT NOT NULL,
  grpc            INTEGER NOT NULL CHECK (grpc IN (0, 1)),
  service         TEXT NOT NULL,
  method          TEXT NOT NULL,
  resource        TEXT NOT NULL,
  project         TEXT NOT NULL,
  billing_project TEXT NOT NULL,
  buckets         TEXT NOT NULL,  -- ','-separated
  read            INTEGER NOT NULL CHECK (read IN (0, 1)),
  http_status     INTEGER NOT NULL,
  grpc_status     INTEGER,        -- NULL: no gRPC status came
  refused_rule    TEXT,           -- NULL: forwarded
  refusal         TEXT,
  request_bytes   INTEGER NOT NULL,
  response_bytes  INTEGER NOT NULL,
  duration_us     INTEGER NOT NULL,
  recorded_at     TEXT NOT NULL
);
-- list_api_calls (a call's rows in order)
CREATE INDEX api_calls_by_call ON api_calls (call_id, id);
-- the per-session counts of list_sessions
CREATE INDEX api_calls_by_session ON api_calls (session_id, refused_rule);
ALTER TABLE calls ADD COLUMN api_calls_dropped INTEGER NOT NULL DEFAULT 0;
)sql",
    // 9: what the call did with the program: run it, go test or go vet (docs/runtimes.md). Calls
    // recorded before it were runs.
    R"sql(
ALTER TABLE calls ADD COLUMN action TEXT NOT NULL DEFAULT 'run';
)sql",
    // 10: /metrics (docs/metrics.md): how many connections the egress proxy refused during each
    // call, by kind (sandbox::egress_refusal_label; never a host name), and an index that makes
    // the API requests by service and verdict a scan of the index alone.
    R"sql(
CREATE TABLE egress_refusals (
  call_id INTEGER NOT NULL REFERENCES calls (id),
  reason  TEXT NOT NULL,
  count   INTEGER NOT NULL,
  PRIMARY KEY (call_id, reason)
);
CREATE INDEX api_calls_by_service ON api_calls (service, refused_rule);
)sql",
};

}  // namespace

int read_user_version(sqlite3* db, const std::string& operation) {
  SqliteStatement statement(db, "PRAGMA user_version", operation);
  return statement.step() ? static_cast<int>(statement.integer(0)) : 0;
}

std::span<const std::string_view> schema_migrations() { return kMigrations; }

void migrate_to_newest_schema(sqlite3* db, const std::string& path) {
  const int newest = static_cast<int>(std::size(kMigrations));
  const std::string operation = "Failed to read the schema version of database " + path;
  auto refuse_newer = [&](int version) {
    if (version <= newest) return;
    throw StoreError("database " + path + " has schema version " + std::to_string(version) +
                     ", newer than this kode-gopherd supports (" + std::to_string(newest) +
                     "); upgrade kode-gopher");
  };
  int version = read_user_version(db, operation);
  refuse_newer(version);
  while (version < newest) {
    SqliteTransaction transaction(db, operation);
    // Read again under the write lock: another daemon starting at the same moment may have
    // migrated in between, and a migration must never run twice.
    version = read_user_version(db, operation);
    refuse_newer(version);
    if (version == newest) break;
    const std::string step_operation = "Failed to migrate database " + path +
                                       " to schema version " + std::to_string(version + 1);
    execute_sql(db, std::string(kMigrations[version]), step_operation);
    execute_sql(db, "PRAGMA user_version = " + std::to_string(version + 1), step_operation);
    transaction.commit();
    ++version;
  }
}

}  // namespace kg::store
