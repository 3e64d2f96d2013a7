// Store: team mode's OAuth rows (clients, users with their sealed upstream tokens, our codes and
// tokens by hash). The authorization server (daemon/team/oauth) owns their meaning; this file
// only keeps them, with the read-and-mark steps (code redemption, refresh rotation) atomic.
#include "sqlite_statement.hpp"
#include "store.hpp"

namespace kg::store {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

constexpr const char* kCodeColumns =
    "code_hash, client_id, redirect_uri, code_challenge, resource, scope, user_id, family_id, "
    "expires_at, redeemed";
constexpr const char* kTokenColumns =
    "token_hash, kind, family_id, user_id, client_id, resource, scope, expires_at, state";

OAuthCodeRecord read_code(const SqliteStatement& row) {
  OAuthCodeRecord code;
  code.code_hash = row.text(0);
  code.client_id = row.text(1);
  code.redirect_uri = row.text(2);
  code.code_challenge = row.text(3);
  code.resource = row.text(4);
  code.scope = row.text(5);
  code.user_id = row.text(6);
  code.family_id = row.text(7);
  code.expires_at = row.integer(8);
  code.redeemed = row.integer(9) != 0;
  return code;
}

OAuthTokenRecord read_token(const SqliteStatement& row) {
  OAuthTokenRecord token;
  token.token_hash = row.text(0);
  token.kind = row.text(1);
  token.family_id = row.text(2);
  token.user_id = row.text(3);
  token.client_id = row.text(4);
  token.resource = row.text(5);
  token.scope = row.text(6);
  token.expires_at = row.integer(7);
  token.state = row.text(8);
  return token;
}

std::optional<OAuthTokenRecord> select_token(sqlite3* db, const std::string& token_hash,
                                             const std::string& operation) {
  SqliteStatement query(db, std::string("SELECT ") + kTokenColumns +
                                " FROM oauth_tokens WHERE token_hash = ?",
                        operation);
  query.bind_text(1, token_hash);
  if (!query.step()) return std::nullopt;
  return read_token(query);
}

}  // namespace

bool Store::insert_oauth_client(const OAuthClientRecord& client, std::int64_t max_unused,
                                std::int64_t unused_ttl_s, std::int64_t unstarted_ttl_s) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to register OAuth client \"" + client.client_name + "\"";
  SqliteTransaction transaction(db_, operation);
  SqliteStatement purge(db_,
                        "DELETE FROM oauth_clients WHERE last_used_at = 0 AND (created_at < ? OR "
                        "(sign_in_started_at = 0 AND created_at < ?))",
                        operation);
  purge.bind_integer(1, client.created_at - unused_ttl_s)
      .bind_integer(2, client.created_at - unstarted_ttl_s);
  purge.run();
  SqliteStatement count(db_, "SELECT count(*) FROM oauth_clients WHERE last_used_at = 0", operation);
  count.step();
  if (count.integer(0) >= max_unused) {
    transaction.commit();  // the purge stands; the client is not registered
    return false;
  }
  SqliteStatement insert(db_,
                         "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, "
                         "created_at) VALUES (?, ?, ?, ?)",
                         operation);
  insert.bind_text(1, client.client_id)
      .bind_text(2, client.client_name)
      .bind_text(3, join_lines(client.redirect_uris))
      .bind_integer(4, client.created_at);
  insert.run();
  transaction.commit();
  return true;
}

void Store::mark_oauth_client_sign_in_started(const std::string& client_id, std::int64_t now) {
  std::lock_guard lock(mutex_);
  SqliteStatement mark(db_, "UPDATE oauth_clients SET sign_in_started_at = ? WHERE client_id = ?",
                       "Failed to record a sign-in start through OAuth client \"" + client_id + "\"");
  mark.bind_integer(1, now).bind_text(2, client_id);
  mark.run();
}

void Store::mark_oauth_client_used(const std::string& client_id, std::int64_t now) {
  std::lock_guard lock(mutex_);
  SqliteStatement mark(db_, "UPDATE oauth_clients SET last_used_at = ? WHERE client_id = ?",
                       "Failed to record a sign-in through OAuth client \"" + client_id + "\"");
  mark.bind_integer(1, now).bind_text(2, client_id);
  mark.run();
}

std::optional<OAuthClientRecord> Store::find_oauth_client(const std::string& client_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(db_,
                        "SELECT client_id, client_name, redirect_uris, created_at, last_used_at, "
                        "sign_in_started_at FROM oauth_clients WHERE client_id = ?",
                        "Failed to look up OAuth client \"" + client_id + "\"");
  query.bind_text(1, client_id);
  if (!query.step()) return std::nullopt;
  OAuthClientRecord client;
  client.client_id = query.text(0);
  client.client_name = query.text(1);
  client.redirect_uris = split_lines(query.text(2));
  client.created_at = query.integer(3);
  client.last_used_at = query.integer(4);
  client.sign_in_started_at = query.integer(5);
  return client;
}

void Store::save_oauth_user(const OAuthUserRecord& user) {
  std::lock_guard lock(mutex_);
  SqliteStatement upsert(
      db_,
      "INSERT INTO oauth_users (user_id, email, sealed_refresh_token, sealed_access_token, "
      "access_token_expires, scopes, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (user_id) DO UPDATE SET email = excluded.email, "
      "sealed_refresh_token = COALESCE(excluded.sealed_refresh_token, sealed_refresh_token), "
      "sealed_access_token = excluded.sealed_access_token, "
      "access_token_expires = excluded.access_token_expires, scopes = excluded.scopes, "
      "updated_at = excluded.updated_at",
      "Failed to save the tokens of user " + user.email);
  upsert.bind_text(1, user.user_id)
      .bind_text(2, user.email)
      .bind_text_or_null(3, user.sealed_refresh_token)
      .bind_text_or_null(4, user.sealed_access_token)
      .bind_integer(5, user.access_token_expires)
      .bind_text(6, user.scopes)
      .bind_integer(7, user.updated_at);
  upsert.run();
}

std::optional<OAuthUserRecord> Store::find_oauth_user(const std::string& user_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(db_,
                        "SELECT user_id, email, sealed_refresh_token, sealed_access_token, "
                        "access_token_expires, scopes, updated_at FROM oauth_users "
                        "WHERE user_id = ?",
                        "Failed to look up user \"" + user_id + "\"");
  query.bind_text(1, user_id);
  if (!query.step()) return std::nullopt;
  OAuthUserRecord user;
  user.user_id = query.text(0);
  user.email = query.text(1);
  user.sealed_refresh_token = query.text(2);
  user.sealed_access_token = query.text(3);
  user.access_token_expires = query.integer(4);
  user.scopes = query.text(5);
  user.updated_at = query.integer(6);
  return user;
}

void Store::insert_oauth_code(const OAuthCodeRecord& code) {
  std::lock_guard lock(mutex_);
  SqliteStatement insert(db_,
                         std::string("INSERT INTO oauth_codes (") + kCodeColumns +
                             ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         "Failed to record an authorization code for client \"" + code.client_id + "\"");
  insert.bind_text(1, code.code_hash)
      .bind_text(2, code.client_id)
      .bind_text(3, code.redirect_uri)
      .bind_text(4, code.code_challenge)
      .bind_text(5, code.resource)
      .bind_text(6, code.scope)
      .bind_text(7, code.user_id)
      .bind_text(8, code.family_id)
      .bind_integer(9, code.expires_at)
      .bind_integer(10, code.redeemed ? 1 : 0);
  insert.run();
}

std::optional<OAuthCodeRecord> Store::redeem_oauth_code(const std::string& code_hash) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to redeem an authorization code";
  SqliteTransaction transaction(db_, operation);
  SqliteStatement query(db_, std::string("SELECT ") + kCodeColumns +
                                 " FROM oauth_codes WHERE code_hash = ?",
                        operation);
  query.bind_text(1, code_hash);
  if (!query.step()) return std::nullopt;
  OAuthCodeRecord code = read_code(query);
  SqliteStatement mark(db_, "UPDATE oauth_codes SET redeemed = 1 WHERE code_hash = ?", operation);
  mark.bind_text(1, code_hash);
  mark.run();
  transaction.commit();
  return code;
}

void Store::insert_oauth_tokens(const std::vector<OAuthTokenRecord>& tokens) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to record issued tokens";
  SqliteTransaction transaction(db_, operation);
  for (const auto& token : tokens) {
    SqliteStatement insert(db_,
                           std::string("INSERT INTO oauth_tokens (") + kTokenColumns +
                               ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           operation);
    insert.bind_text(1, token.token_hash)
        .bind_text(2, token.kind)
        .bind_text(3, token.family_id)
        .bind_text(4, token.user_id)
        .bind_text(5, token.client_id)
        .bind_text(6, token.resource)
        .bind_text(7, token.scope)
        .bind_integer(8, token.expires_at)
        .bind_text(9, token.state);
    insert.run();
  }
  transaction.commit();
}

std::optional<OAuthTokenRecord> Store::find_oauth_token(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  return select_token(db_, token_hash, "Failed to look up an access token");
}

std::optional<OAuthTokenRecord> Store::consume_oauth_refresh_token(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to rotate a refresh token";
  SqliteTransaction transaction(db_, operation);
  auto token = select_token(db_, token_hash, operation);
  if (!token || token->kind != "refresh") return std::nullopt;
  if (token->state == "active") {
    SqliteStatement mark(db_, "UPDATE oauth_tokens SET state = 'consumed' WHERE token_hash = ?",
                         operation);
    mark.bind_text(1, token_hash);
    mark.run();
  }
  transaction.commit();
  return token;
}

std::int64_t Store::revoke_oauth_family(const std::string& family_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement revoke(db_,
                         "UPDATE oauth_tokens SET state = 'revoked' "
                         "WHERE family_id = ? AND state != 'revoked'",
                         "Failed to revoke a token family");
  revoke.bind_text(1, family_id);
  revoke.run();
  return sqlite3_changes(db_);
}

void Store::purge_expired_oauth(std::int64_t now) {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to delete expired OAuth codes and tokens";
  SqliteTransaction transaction(db_, operation);
  // Codes stay a day past their expiry, so a replay is still recognized (and revokes).
  for (const char* sql : {"DELETE FROM oauth_codes WHERE expires_at < ? - 86400",
                          "DELETE FROM oauth_tokens WHERE expires_at < ?"}) {
    SqliteStatement purge(db_, sql, operation);
    purge.bind_integer(1, now);
    purge.run();
  }
  transaction.commit();
}

}  // namespace kg::store
