#include "command_session.hpp"

#include <chrono>

#include "daemon_api/open_session_request.hpp"
#include "daemon_api/sessions_listing.hpp"
#include "form_encoding.hpp"
#include "unix_http_client.hpp"

namespace kg::cli {

CommandSession::CommandSession(const DaemonConnection& connection, const GlobalOptions& globals,
                               std::ostream& diagnostics)
    : connection_(connection) {
  const rapidjson::Document session = with_daemon(connection, globals, diagnostics, [&] {
    // Opening may wait for a free session slot and a sandbox to start.
    return connection.client.post("/v1/sessions",
                                  wire::daemon_api::encode_open_session_request({"cli", ""}),
                                  std::chrono::minutes(5));
  });
  id_ = wire::daemon_api::decode_session(session).id;
}

CommandSession::~CommandSession() {
  try {
    kg::net::UnixHttpClient(connection_.client.socket_path())
        .request("DELETE", "/v1/sessions/" + net::percent_encode(id_), {}, {});
  } catch (...) {
    // The daemon closes it when it stops; nothing the user can do here.
  }
}

}  // namespace kg::cli
