#include "daemon_client.hpp"

#include "daemon_api/error_body.hpp"
#include "json_text.hpp"
#include "malformed_message.hpp"
#include "utf8_text.hpp"

#include <stdexcept>

namespace kg::cli {

rapidjson::Document DaemonClient::get(std::string_view target,
                                      std::chrono::milliseconds timeout) const {
  kg::net::HttpRequestOptions options;
  options.timeout = timeout;
  return answer(http_.get(target, options), "GET", target);
}

rapidjson::Document DaemonClient::post(std::string_view target, std::string_view json_body,
                                       std::chrono::milliseconds timeout) const {
  kg::net::HttpRequestOptions options;
  options.timeout = timeout;
  return answer(http_.request("POST", target, json_body, options), "POST", target);
}

rapidjson::Document DaemonClient::answer(const kg::net::HttpResponse& response,
                                         std::string_view method,
                                         std::string_view target) const {
  if (response.status < 200 || response.status > 299) {
    throw daemon_error_from_answer(response.status, response.body);
  }
  return parse_json(response.body, "The daemon's answer to " + std::string(method) + " " +
                                       std::string(target));
}

DaemonApiError daemon_error_from_answer(int http_status, std::string_view body) {
  const auto parsed = json::read_json(body, json::kDaemonAnswerLimits);
  if (!parsed.refused) {
    try {
      const auto error = wire::daemon_api::decode_error_body(parsed.document);
      return DaemonApiError(http_status, error.code, error.message);
    } catch (const wire::MalformedMessage&) {
      // Not the daemon's error body (a proxy's page, another server): quote what came instead.
    }
  }
  return DaemonApiError(http_status, "",
                        "daemon answered HTTP " + std::to_string(http_status) + ": " +
                            json::to_valid_utf8(body.substr(
                                0, json::utf8_boundary_before(body, 200))));
}

}  // namespace kg::cli
