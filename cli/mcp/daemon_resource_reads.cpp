// DaemonSessionLink: resources/read and resources/list, the files this connection's calls left
// under /app/out (docs/mcp.md, "Files out"). They run on the reading thread, beside a call the
// worker may be running, so they use only the socket path and the session id (under the
// mutex) and a connection of their own.
#include "daemon_client.hpp"
#include "daemon_session_link.hpp"
#include "form_encoding.hpp"

namespace kg::mcp {
namespace {

constexpr std::string_view kUriPrefix = "kode-gopher://sessions/";

}  // namespace

std::pair<std::string, std::string> DaemonSessionLink::socket_and_session() const {
  std::lock_guard lock(mutex_);
  return {socket_path_, session_id_};
}

ResourceBytes DaemonSessionLink::read_resource(std::string_view uri) {
  const auto [socket_path, id] = socket_and_session();
  // Only this connection's own session: the uri's session must be it, before the daemon is asked.
  const std::string own = std::string(kUriPrefix) + kg::net::percent_encode(id) + "/calls/";
  if (id.empty() || !uri.starts_with(own)) {
    throw BackendRefusedError(404, "not_found",
                              "No file " + std::string(uri) + " in this connection's session");
  }
  kg::net::HttpRequestOptions options;
  options.max_response_bytes = 64ull << 20;
  const kg::net::HttpResponse response = kg::net::UnixHttpClient(socket_path).request(
      "GET", "/v1/sessions/" + std::string(uri.substr(kUriPrefix.size())), {}, options);
  if (response.status < 200 || response.status > 299) {
    throw kg::cli::daemon_error_from_answer(response.status, response.body);
  }
  return ResourceBytes{response.body, response.content_type};
}

std::vector<wire::daemon_api::OutFile> DaemonSessionLink::list_resources() {
  const auto [socket_path, id] = socket_and_session();
  if (id.empty()) return {};
  return wire::daemon_api::decode_out_files(kg::cli::DaemonClient(socket_path).get(
      "/v1/sessions/" + kg::net::percent_encode(id) + "/files"));
}

}  // namespace kg::mcp
