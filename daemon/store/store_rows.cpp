#include "store_rows.hpp"

namespace kg::store {
namespace {

std::uint64_t unsigned_column(const SqliteStatement& row, int column) {
  const auto value = row.integer(column);
  return value < 0 ? 0 : static_cast<std::uint64_t>(value);
}

}  // namespace

SessionRecord read_session_row(const SqliteStatement& row) {
  SessionRecord session;
  session.id = row.text(0);
  session.client = row.text(1);
  session.provider = row.text(2);
  session.sandbox_id = row.text(3);
  session.runtime = row.text(4);
  session.state = row.text(5);
  session.opened_at = row.text(6);
  session.closed_at = row.text(7);
  session.close_reason = row.text(8);
  session.calls = row.integer(9);
  session.identity = row.text(10);
  session.owner = row.text(11);
  session.owner_email = row.text(12);
  session.api_calls = row.integer(13);
  session.api_calls_refused = row.integer(14);
  return session;
}

CallRecord read_call_row(const SqliteStatement& row) {
  CallRecord call;
  call.id = row.integer(0);
  call.session_id = row.text(1);
  call.runtime = row.text(2);
  call.mode = row.text(3);
  call.phase = row.text(4);
  call.status = row.text(5);
  call.state = row.text(6);
  call.exit_code = static_cast<int>(row.integer(7));
  call.queue_ms = unsigned_column(row, 8);
  call.setup_ms = unsigned_column(row, 9);
  call.build_ms = unsigned_column(row, 10);
  call.run_ms = unsigned_column(row, 11);
  call.total_ms = unsigned_column(row, 12);
  call.cache_hit = row.integer(13) != 0;
  call.tidied = row.integer(14) != 0;
  call.code_sha256 = row.text(15);
  call.input_bytes = unsigned_column(row, 16);
  call.output_bytes = unsigned_column(row, 17);
  call.created_at = row.text(18);
  call.finished_at = row.text(19);
  call.error_message = row.text(20);
  call.runtime_reason = row.text(21);
  call.api_calls_dropped = unsigned_column(row, 22);
  return call;
}

}  // namespace kg::store
