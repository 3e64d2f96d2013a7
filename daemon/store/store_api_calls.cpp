// Store: the api_calls table, the audit of every Google API request the egress proxy read.
#include "sqlite_statement.hpp"
#include "store.hpp"
#include "utc_time.hpp"

namespace kg::store {

void Store::record_api_calls(std::int64_t call_id, const std::vector<ApiCallRecord>& records,
                             std::uint64_t dropped) {
  if (records.empty() && dropped == 0) return;
  std::lock_guard lock(mutex_);
  const std::string operation =
      "Failed to record the API requests of call " + std::to_string(call_id);
  const std::string now = utc::to_rfc3339_millis(std::chrono::system_clock::now());
  SqliteTransaction transaction(db_, operation);
  for (const auto& r : records) {
    SqliteStatement insert(
        db_, *statements_,
        "INSERT INTO api_calls (call_id, session_id, host, http_method, grpc, service, method, "
        "resource, project, billing_project, buckets, read, http_status, grpc_status, "
        "refused_rule, refusal, request_bytes, response_bytes, duration_us, recorded_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, -1), ?, ?, ?, ?, ?, ?)",
        operation);
    insert.bind_integer(1, call_id)
        .bind_text(2, r.session_id)
        .bind_text(3, r.host)
        .bind_text(4, r.http_method)
        .bind_integer(5, r.grpc ? 1 : 0)
        .bind_text(6, r.service)
        .bind_text(7, r.method)
        .bind_text(8, r.resource)
        .bind_text(9, r.project)
        .bind_text(10, r.billing_project)
        .bind_text(11, r.buckets)
        .bind_integer(12, r.read ? 1 : 0)
        .bind_integer(13, r.http_status)
        .bind_integer(14, r.grpc_status < 0 ? -1 : r.grpc_status)
        .bind_text_or_null(15, r.refused_rule)
        .bind_text_or_null(16, r.refusal)
        .bind_integer(17, to_sql_integer(r.request_bytes))
        .bind_integer(18, to_sql_integer(r.response_bytes))
        .bind_integer(19, to_sql_integer(r.duration_us))
        .bind_text(20, now);
    insert.run();
  }
  if (dropped != 0) {
    SqliteStatement update(db_,
                           "UPDATE calls SET api_calls_dropped = api_calls_dropped + ? WHERE id = ?",
                           operation);
    update.bind_integer(1, to_sql_integer(dropped)).bind_integer(2, call_id);
    update.run();
  }
  transaction.commit();
}

namespace {

constexpr const char* kApiCallColumns =
    "id, call_id, session_id, host, http_method, grpc, service, method, resource, project, "
    "billing_project, buckets, read, http_status, COALESCE(grpc_status, -1), refused_rule, "
    "refusal, request_bytes, response_bytes, duration_us, recorded_at";

std::vector<ApiCallRecord> read_api_call_rows(SqliteStatement& query) {
  std::vector<ApiCallRecord> records;
  while (query.step()) {
    ApiCallRecord r;
    r.id = query.integer(0);
    r.call_id = query.integer(1);
    r.session_id = query.text(2);
    r.host = query.text(3);
    r.http_method = query.text(4);
    r.grpc = query.integer(5) != 0;
    r.service = query.text(6);
    r.method = query.text(7);
    r.resource = query.text(8);
    r.project = query.text(9);
    r.billing_project = query.text(10);
    r.buckets = query.text(11);
    r.read = query.integer(12) != 0;
    r.http_status = static_cast<int>(query.integer(13));
    r.grpc_status = static_cast<int>(query.integer(14));
    r.refused_rule = query.text(15);
    r.refusal = query.text(16);
    r.request_bytes = static_cast<std::uint64_t>(query.integer(17));
    r.response_bytes = static_cast<std::uint64_t>(query.integer(18));
    r.duration_us = static_cast<std::uint64_t>(query.integer(19));
    r.recorded_at = query.text(20);
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace

std::vector<ApiCallRecord> Store::list_api_calls(std::int64_t call_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(
      db_, std::string("SELECT ") + kApiCallColumns + " FROM api_calls WHERE call_id = ? ORDER BY id",
      "Failed to list the API requests of call " + std::to_string(call_id));
  query.bind_integer(1, call_id);
  return read_api_call_rows(query);
}

std::vector<ApiCallRecord> Store::list_session_api_calls(const std::string& session_id,
                                                         std::size_t limit) {
  std::lock_guard lock(mutex_);
  SqliteStatement query(db_,
                        std::string("SELECT ") + kApiCallColumns +
                            " FROM api_calls WHERE session_id = ? ORDER BY id LIMIT ?",
                        "Failed to list the API requests of session \"" + session_id + "\"");
  query.bind_text(1, session_id).bind_integer(2, to_sql_integer(limit));
  return read_api_call_rows(query);
}

void Store::record_egress_refusals(std::int64_t call_id,
                                   const std::map<std::string, std::uint64_t>& counts) {
  if (counts.empty()) return;
  std::lock_guard lock(mutex_);
  const std::string operation =
      "Failed to record the egress refusals of call " + std::to_string(call_id);
  SqliteTransaction transaction(db_, operation);
  for (const auto& [reason, count] : counts) {
    SqliteStatement upsert(db_, *statements_,
                           "INSERT INTO egress_refusals (call_id, reason, count) VALUES (?, ?, ?) "
                           "ON CONFLICT (call_id, reason) DO UPDATE SET count = count + excluded.count",
                           operation);
    upsert.bind_integer(1, call_id).bind_text(2, reason).bind_integer(3, to_sql_integer(count));
    upsert.run();
  }
  transaction.commit();
}

}  // namespace kg::store
