#include "execute_request_parser.hpp"

#include "api_errors.hpp"
#include "daemon_api/execute_request.hpp"
#include "json_body.hpp"
#include "malformed_message.hpp"

namespace kg::api {
namespace {

session::RequestedLimits requested_limits(const wire::daemon_api::ExecuteLimits& limits) {
  return session::RequestedLimits{limits.memory_bytes,    limits.pids,       limits.cpu_seconds,
                                  limits.file_size_bytes, limits.open_files, limits.output_bytes};
}

}  // namespace

ParsedExecute parse_execute_request(std::string_view body) {
  const auto doc = parse_json_object(body);
  try {
    return parsed_execute(wire::daemon_api::decode_execute_request(doc));
  } catch (const wire::MalformedMessage& e) {
    throw BadRequestError(e.what());
  }
}

ParsedExecute parsed_execute(wire::daemon_api::ExecuteRequest request) {
  try {
    wire::daemon_api::check_execute_request(request);
  } catch (const wire::MalformedMessage& e) {
    throw BadRequestError(e.what());
  }
  ParsedExecute parsed;
  auto& execute = parsed.call.execute;
  if (request.code) {
    execute.files.push_back({"main.go", std::move(*request.code)});
  } else {
    for (auto& [path, content] : request.files) execute.files.push_back({path, std::move(content)});
  }
  if (request.extra_imports) execute.extra_imports = std::move(*request.extra_imports);
  parsed.call.timeout_ms = request.timeout_ms;
  parsed.call.limits = requested_limits(request.limits);
  parsed.call.runtime = request.runtime.value_or("");
  parsed.call.api_policy = std::move(request.api_policy);
  const std::string action = request.action.value_or("run");
  execute.action = action == "test"  ? plugin::Action::test
                   : action == "vet" ? plugin::Action::vet
                                     : plugin::Action::run;
  parsed.client = request.client.value_or("");
  return parsed;
}

}  // namespace kg::api
