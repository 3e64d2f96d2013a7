#include "api_routes.hpp"

#include "metrics_text.hpp"
#include "prometheus_text.hpp"

#include <unistd.h>

#include <vector>

#include "api_errors.hpp"
#include "auth_status_json.hpp"
#include "call_files_routes.hpp"
#include "daemon_api/cancel_answer.hpp"
#include "daemon_api/open_session_request.hpp"
#include "execute_request_parser.hpp"
#include "malformed_message.hpp"
#include "json_body.hpp"
#include "response_json.hpp"
#include "session_api_calls_json.hpp"

namespace kg::api {
namespace {

// Progress is logged at debug level until a streaming transport carries it to the caller.
class LoggingProgress final : public plugin::ProgressSink {
 public:
  LoggingProgress(plugin::Logger& logger, std::string session_id)
      : logger_(logger), session_id_(std::move(session_id)) {}
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override {
    try {
      logger_.log(plugin::LogLevel::debug, "Session " + session_id_ + ": " +
                                               std::string(plugin::to_string(phase)) + ": " +
                                               std::string(detail));
    } catch (...) {
    }
  }

 private:
  plugin::Logger& logger_;
  std::string session_id_;
};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const auto end = slash == std::string::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

void require_method(const ApiRequest& request, std::string_view allowed) {
  if (request.method != allowed) {
    throw MethodNotAllowedError(request.method + " is not allowed on " + request.path +
                                "; use " + std::string(allowed));
  }
}

std::string health_json(const ApiContext& context) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("status"); w.String("ok");
  w.Key("version"); write_string(w, context.version);
  w.Key("pid"); w.Int(static_cast<int>(::getpid()));
  w.Key("uptime_ms");
  w.Int64(std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::steady_clock::now() - context.started_at).count());
  w.Key("socket"); write_string(w, context.socket_path);
  w.Key("state_dir"); write_string(w, context.state_dir);
  w.Key("warm_sandboxes"); w.Uint64(context.sessions.warm_sandboxes_ready());
  w.Key("isolation");
  w.StartArray();
  for (const auto& line : context.isolation) write_string(w, line);
  w.EndArray();
  w.Key("warnings");
  w.StartArray();
  for (const auto& line : context.warnings) write_string(w, line);
  w.EndArray();
  w.Key("provider"); write_string(w, context.provider_name);
  if (!context.team.url.empty()) {
    w.Key("team");
    w.StartObject();
    w.Key("url"); write_string(w, context.team.url);
    w.Key("listening"); write_string(w, context.team.listening);
    w.Key("transport"); write_string(w, context.team.transport);
    w.Key("auth"); write_string(w, context.team.auth);
    if (!context.team.run_as.empty()) {
      w.Key("run_as"); write_string(w, context.team.run_as);
    }
    w.EndObject();
  }
  // The modules go mod tidy fetched, all users together, against [cache] tidy_modules_max_bytes.
  if (context.tidy_modules != nullptr) {
    const auto usage = context.tidy_modules->usage();
    w.Key("tidy_modules");
    w.StartObject();
    w.Key("bytes"); w.Uint64(usage.bytes);
    w.Key("limit_bytes"); w.Uint64(usage.limit_bytes);
    w.Key("entries"); w.Uint64(usage.entries);
    w.EndObject();
  }
  // The prewarmed Go build cache: a stale one is built by the first call that needs it. (None on
  // the host when the provider's sandboxes bring their own.)
  if (context.base_cache == nullptr) {
    w.EndObject();
    return buffer.GetString();
  }
  const auto cache = context.base_cache->status();
  static constexpr const char* kStates[] = {"stale", "building", "current", "failed"};
  w.Key("go_build_cache");
  w.StartObject();
  w.Key("state"); w.String(kStates[static_cast<int>(cache.state)]);
  if (!cache.step.empty()) {
    w.Key(cache.state == sandbox::BaseCache::State::failed ? "error" : "step");
    write_string(w, cache.step);
  }
  if (cache.state == sandbox::BaseCache::State::building) {
    w.Key("elapsed_s"); w.Uint64(cache.elapsed_s);
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

ApiResponse open_session(ApiContext& context, const ApiRequest& request) {
  wire::daemon_api::OpenSessionRequest open;  // no body: both empty
  if (!request.body.empty()) {
    const auto doc = parse_json_object(request.body);
    try {
      open = wire::daemon_api::decode_open_session_request(doc);
    } catch (const wire::MalformedMessage& e) {
      throw BadRequestError(e.what());
    }
  }
  session::SlotWait wait;
  wait.caller_gone = request.client_gone;
  return {201, session_json(context.sessions.open(open.client, open.runtime, wait))};
}

// Progress goes to the caller's stream when there is one, and always to the debug log.
class CallProgress final : public plugin::ProgressSink {
 public:
  CallProgress(plugin::Logger& logger, std::string session_id, plugin::ProgressSink* stream)
      : log_(logger, std::move(session_id)), stream_(stream) {}
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override {
    log_.phase_started(phase, detail);
    if (stream_) stream_->phase_started(phase, detail);
  }

 private:
  LoggingProgress log_;
  plugin::ProgressSink* stream_;
};

session::CallResult run_in_session(ApiContext& context, const std::string& session_id,
                                   ParsedExecute parsed, plugin::ProgressSink* stream,
                                   sandbox::OutputSink* output) {
  parsed.call.output = output;
  CallProgress progress(context.logger, session_id, stream);
  return context.sessions.execute(session_id, std::move(parsed.call), progress);
}

ApiResponse execute_in_session(ApiContext& context, const std::string& session_id,
                               const ApiRequest& request) {
  return {200, call_result_json(run_in_session(context, session_id,
                                               parse_execute_request(request.body),
                                               request.progress, request.output))};
}

ApiResponse package_docs_route(ApiContext& context, const std::string& session_id,
                               const ApiRequest& request) {
  const auto doc = parse_json_object(request.body);
  wire::daemon_api::DocsRequest docs_request;
  try {
    docs_request = wire::daemon_api::decode_docs_request(doc);
  } catch (const wire::MalformedMessage& e) {
    throw BadRequestError(e.what());
  }
  return {200, wire::daemon_api::encode_docs_answer(
                   package_docs(context, session_id, std::move(docs_request)))};
}

// POST /v1/execute: a session for just this call.
ApiResponse execute_once(ApiContext& context, const ApiRequest& request) {
  auto parsed = parse_execute_request(request.body);
  parsed.call.output = request.output;
  CallProgress progress(context.logger, "(one-shot)", request.progress);
  return {200, call_result_json(context.sessions.execute_once(
                   parsed.client.empty() ? "api" : parsed.client, std::move(parsed.call),
                   progress, request.client_gone))};
}

}  // namespace

wire::daemon_api::ExecuteResult execute_in_session(ApiContext& context,
                                                   const std::string& session_id,
                                                   wire::daemon_api::ExecuteRequest request,
                                                   plugin::ProgressSink* progress,
                                                   sandbox::OutputSink* output) {
  return execute_result_message(run_in_session(context, session_id,
                                               parsed_execute(std::move(request)), progress,
                                               output));
}

wire::daemon_api::DocsAnswer package_docs(ApiContext& context, const std::string& session_id,
                                          wire::daemon_api::DocsRequest request) {
  if (request.symbol && request.symbol->empty()) request.symbol.reset();  // "" asks for no symbol
  std::string docs =
      context.sessions.package_docs(session_id, request.package, request.symbol.value_or(""));
  return {std::move(request.package), std::move(request.symbol), std::move(docs)};
}

bool is_execute_route(const std::string& method, const std::string& path) {
  if (method != "POST") return false;
  const auto parts = split_path(path);
  return (parts.size() == 2 && parts[0] == "v1" && parts[1] == "execute") ||
         (parts.size() == 4 && parts[0] == "v1" && parts[1] == "sessions" && parts[3] == "execute");
}

ApiResponse route_request(ApiContext& context, const ApiRequest& request) {
  const auto parts = split_path(request.path);
  if (parts.size() == 1 && parts[0] == "metrics") {  // where Prometheus looks (docs/metrics.md)
    require_method(request, "GET");
    return {200, metrics_text(context), std::string(metrics::kPrometheusContentType)};
  }
  if (parts.size() < 2 || parts[0] != "v1") {
    throw RouteNotFoundError("No route " + request.path + "; every route starts with /v1/");
  }
  const std::string& resource = parts[1];
  if (parts.size() == 2) {
    if (resource == "health") {
      require_method(request, "GET");
      return {200, health_json(context)};
    }
    if (resource == "plugins") {
      require_method(request, "GET");
      return {200, plugins_json(context.plugins, context.sessions.runtime_states(),
                                context.sessions.limits())};
    }
    if (resource == "auth") {
      require_method(request, "GET");
      return {200, auth_status_json(context.credentials.status())};
    }
    if (resource == "stats") {
      require_method(request, "GET");
      return {200, stats_json(context.store.stats())};
    }
    if (resource == "execute") {
      require_method(request, "POST");
      return execute_once(context, request);
    }
    if (resource == "sessions") {
      if (request.method == "POST") return open_session(context, request);
      require_method(request, "GET");
      const bool all = request.query.find("all=true") != std::string::npos ||
                       request.query.find("all=1") != std::string::npos;
      return {200, sessions_json(context.store.list_sessions(all, 100))};
    }
  }
  if (resource == "sessions" && parts.size() == 3) {
    if (request.method == "DELETE") {
      return {200, session_json(context.sessions.close(parts[2], "closed by client"))};
    }
    require_method(request, "GET");
    return {200, session_json(context.sessions.get(parts[2]))};
  }
  if (resource == "sessions" && parts.size() == 4 && parts[3] == "execute") {
    require_method(request, "POST");
    return execute_in_session(context, parts[2], request);
  }
  if (resource == "sessions" && parts.size() == 4 && parts[3] == "cancel") {
    require_method(request, "POST");
    return {200, wire::daemon_api::encode_cancel_answer({context.sessions.cancel(parts[2])})};
  }
  if (resource == "sessions" && parts.size() == 4 && parts[3] == "api_calls") {
    require_method(request, "GET");
    return {200, session_api_calls_json(context, parts[2])};
  }
  if (resource == "sessions" && parts.size() == 4 && parts[3] == "docs") {
    require_method(request, "POST");
    return package_docs_route(context, parts[2], request);
  }
  if (resource == "sessions" && parts.size() >= 4) {
    if (auto answer = route_call_files(context, request, parts)) return std::move(*answer);
  }
  throw RouteNotFoundError("No route " + request.method + " " + request.path +
                           "; see docs/daemon-api.md");
}

}  // namespace kg::api
