#include "call_files_routes.hpp"

#include <charconv>

#include "api_errors.hpp"

namespace kg::api {
namespace {

std::int64_t call_id_of(const std::string& text) {
  std::int64_t id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size() || id <= 0) {
    throw RouteNotFoundError("\"" + text + "\" is not a call id (a positive integer, the result's "
                             "call_id)");
  }
  return id;
}

void require_get(const ApiRequest& request) {
  if (request.method != "GET") {
    throw MethodNotAllowedError(request.method + " is not allowed on " + request.path + "; use GET");
  }
}

}  // namespace

wire::daemon_api::OutFile out_file_message(const session::OutFile& file) {
  return {file.name, file.size, file.media_type, file.uri};
}

std::optional<ApiResponse> route_call_files(ApiContext& context, const ApiRequest& request,
                                            const std::vector<std::string>& parts) {
  // The Unix socket serves the daemon's own user only (api_server.cpp checks the peer), who
  // may read any session's files: no owner to check here (team mode passes its user's).
  if (parts.size() == 4 && parts[3] == "files") {
    require_get(request);
    std::vector<wire::daemon_api::OutFile> files;
    for (const auto& file : context.sessions.call_files(parts[2], std::nullopt)) {
      files.push_back(out_file_message(file));
    }
    return ApiResponse{200, wire::daemon_api::encode_files_listing(files)};
  }
  if (parts.size() >= 7 && parts[3] == "calls" && parts[5] == "files") {
    require_get(request);
    std::string name;
    for (std::size_t i = 6; i < parts.size(); ++i) name += (name.empty() ? "" : "/") + parts[i];
    auto file = context.sessions.call_file(parts[2], std::nullopt, call_id_of(parts[4]), name);
    return ApiResponse{200, std::move(file.content), std::move(file.media_type)};
  }
  return std::nullopt;
}

}  // namespace kg::api
