// Store: the credential_grants table, one row per access token handed to a sandbox.
#include "sqlite_statement.hpp"
#include "store.hpp"
#include "utc_time.hpp"

namespace kg::store {

void Store::record_grant(const GrantRecord& grant) {
  std::lock_guard lock(mutex_);
  SqliteStatement insert(db_, *statements_,
                         "INSERT INTO credential_grants (session_id, call_id, plugin, mode, "
                         "identity, credential_type, scopes, expires_at, granted_at) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         "Failed to record the credentials of call " + std::to_string(grant.call_id));
  insert.bind_text(1, grant.session_id)
      .bind_integer(2, grant.call_id)
      .bind_text(3, grant.plugin)
      .bind_text(4, grant.mode)
      .bind_text(5, grant.identity)
      .bind_text(6, grant.credential_type)
      .bind_text(7, grant.scopes)
      .bind_text(8, grant.expires_at)
      .bind_text(9, utc::to_rfc3339_millis(std::chrono::system_clock::now()));
  insert.run();
}

std::vector<GrantRecord> Store::list_grants(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(db_,
                        "SELECT id, session_id, call_id, plugin, mode, identity, credential_type, "
                        "scopes, expires_at, granted_at FROM credential_grants "
                        "WHERE session_id = ? ORDER BY id",
                        "Failed to list the credentials of session \"" + session_id + "\"");
  query.bind_text(1, session_id);
  std::vector<GrantRecord> grants;
  while (query.step()) {
    GrantRecord g;
    g.id = query.integer(0);
    g.session_id = query.text(1);
    g.call_id = query.integer(2);
    g.plugin = query.text(3);
    g.mode = query.text(4);
    g.identity = query.text(5);
    g.credential_type = query.text(6);
    g.scopes = query.text(7);
    g.expires_at = query.text(8);
    g.granted_at = query.text(9);
    grants.push_back(std::move(g));
  }
  return grants;
}

}  // namespace kg::store
