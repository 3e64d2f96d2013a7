#include "mcp_endpoint.hpp"

#include <chrono>

#include "capped_request_body.hpp"
#include "json_rpc.hpp"
#include "protocol_versions.hpp"
#include "queued_reply.hpp"

namespace kg::team {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr auto kPoll = 250ms;
constexpr auto kKeepalive = 15s;
constexpr auto kStopWait = 30s;

// A client that went away cancels its request. The request keeps counting against the user's
// limits (max_queued_per_user) until it has stopped, so a client cannot start more work than
// its limit by hanging up: wait for its answer or its end, at most kStopWait.
void cancel_and_wait(McpHttpSession& session, QueuedReply& reply) {
  session.cancel(&reply);
  const auto deadline = std::chrono::steady_clock::now() + kStopWait;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::optional<QueuedReply::Item> item = reply.next(kPoll);
    if (item && item->kind != QueuedReply::Item::Kind::notification) return;
  }
}

// scheme://host[:port] of a URL (its origin, as browsers send it).
std::string origin_of(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return url;
  const auto path = url.find('/', scheme_end + 3);
  return path == std::string::npos ? url : url.substr(0, path);
}

// host[:port] of a URL.
std::string authority_of(const std::string& url) {
  const std::string origin = origin_of(url);
  const auto scheme_end = origin.find("://");
  return scheme_end == std::string::npos ? origin : origin.substr(scheme_end + 3);
}

bool lists(const std::string& header, std::string_view value) {
  return header.find(value) != std::string::npos;
}

bool is_legacy_version(const std::string& version) {
  for (const auto supported : mcp::kSupportedVersions) {
    if (supported == version && supported != mcp::kModernVersion) return true;
  }
  return false;
}

HttpReply accepted() {
  HttpReply reply;
  reply.status = 202;
  reply.content_type.clear();
  return reply;
}

}  // namespace

McpEndpoint::McpEndpoint(EndpointOptions options, RequestAuthenticator& authenticator,
                         McpSessionRegistry& sessions, UserCallLimits& limits,
                         plugin::Logger& logger)
    : options_(std::move(options)),
      authenticator_(authenticator),
      sessions_(sessions),
      limits_(limits),
      logger_(logger) {}

std::optional<HttpReply> McpEndpoint::refuse_origin(const HttpExchange& request) const {
  const std::string host = request.header("host");
  if (!host.empty() && host != authority_of(options_.public_url) && host != options_.listen) {
    const auto colon = options_.listen.rfind(':');
    const std::string port = colon == std::string::npos ? "" : options_.listen.substr(colon);
    const bool loopback_listen = options_.listen.starts_with("127.0.0.1:") ||
                                 options_.listen.starts_with("localhost:") ||
                                 options_.listen.starts_with("[::1]:");
    const bool loopback_alias = loopback_listen && (host == "localhost" + port ||
                                                    host == "127.0.0.1" + port ||
                                                    host == "[::1]" + port);
    if (!loopback_alias) {
      logger_.log(plugin::LogLevel::warn, "Refused a request for Host " + host);
      return rpc_error_reply(421, "null", mcp::RpcErrorCode::invalid_request,
                             "Misdirected Request: this server answers for " +
                                 authority_of(options_.public_url) + ", not Host " + host +
                                 " (set [http] public_url to the address clients use)");
    }
  }
  const std::string origin = request.header("origin");
  if (origin.empty() || origin == origin_of(options_.public_url)) return std::nullopt;
  for (const auto& allowed : options_.allowed_origins) {
    if (origin == allowed) return std::nullopt;
  }
  logger_.log(plugin::LogLevel::warn, "Refused a request from Origin " + origin);
  return rpc_error_reply(403, "null", mcp::RpcErrorCode::invalid_request,
                         "Forbidden: Origin " + origin + " may not use this server (it serves " +
                             origin_of(options_.public_url) +
                             " and [http] allowed_origins)");
}

void McpEndpoint::serve(HttpExchange request, const BodyReader& read_body, ResponseStream& out) {
  if (auto refusal = refuse_origin(request)) return out.send(*refusal);
  auto who = authenticator_.authenticate(request);
  if (const auto* failure = std::get_if<AuthFailure>(&who)) {
    HttpReply reply;
    reply.status = failure->status;
    if (!failure->www_authenticate.empty()) {
      reply.headers.emplace_back("WWW-Authenticate", failure->www_authenticate);
    }
    reply.body = mcp::error_line("null", mcp::RpcErrorCode::invalid_request, failure->message);
    return out.send(reply);
  }
  const SignedInUser& user = std::get<SignedInUser>(who);
  if (request.method == "POST") {
    try {
      request.body = read_body(options_.max_request_bytes);
    } catch (const BodyTooLargeError& e) {
      return out.send(rpc_error_reply(413, "null", mcp::RpcErrorCode::invalid_request, e.what()));
    } catch (const net::IncompleteBodyError& e) {
      return out.send(rpc_error_reply(400, "null", mcp::RpcErrorCode::invalid_request, e.what()));
    }
    return post(request, user, out);
  }
  if (request.method == "GET") return get(request, user, out);
  if (request.method == "DELETE") return remove(request, user, out);
  HttpReply reply = rpc_error_reply(405, "null", mcp::RpcErrorCode::invalid_request,
                                    "Method " + request.method + " is not allowed on /mcp; use "
                                    "POST (and GET or DELETE with an Mcp-Session-Id)");
  reply.headers.emplace_back("Allow", "GET, POST, DELETE");
  out.send(reply);
}

void McpEndpoint::post(const HttpExchange& request, const SignedInUser& user,
                       ResponseStream& out) {
  if (!lists(request.header("content-type"), "application/json")) {
    return out.send(rpc_error_reply(415, "null", mcp::RpcErrorCode::invalid_request,
                                    "Unsupported Media Type: POST a JSON-RPC message with "
                                    "Content-Type: application/json"));
  }
  std::shared_ptr<mcp::IncomingMessage> message;
  try {
    message = std::make_shared<mcp::IncomingMessage>(mcp::parse_message(request.body));
  } catch (const mcp::RpcError& e) {
    return out.send(rpc_error_reply(400, e.id_json(), e.code(), e.what()));
  }
  if (message->kind == mcp::IncomingMessage::Kind::response) return out.send(accepted());

  const std::string session_id = request.header("mcp-session-id");
  const std::optional<std::string> modern = mcp::modern_request_version(message->params);
  // Without a session, a request is of the stateless era when its _meta or its
  // MCP-Protocol-Version header says so (a header naming no legacy revision).
  const std::string header_version = request.header("mcp-protocol-version");
  const bool stateless = session_id.empty() &&
                         (modern || (!header_version.empty() && !is_legacy_version(header_version)));
  std::shared_ptr<McpHttpSession> session;
  Headers headers;
  bool created = false;
  try {
    if (!session_id.empty()) {
      session = sessions_.find(session_id, user);
      if (!session) {
        return out.send(rpc_error_reply(
            404, message->id_json.empty() ? "null" : message->id_json,
            mcp::RpcErrorCode::invalid_request,
            "Session not found: it ended (DELETE, or idle too long) or was never yours; send "
            "initialize without Mcp-Session-Id for a new one"));
      }
      const std::string version = request.header("mcp-protocol-version");
      if (!version.empty() && !is_legacy_version(version) && !modern) {
        return out.send(rpc_error_reply(400, message->id_json.empty() ? "null" : message->id_json,
                                        mcp::RpcErrorCode::invalid_request,
                                        "Bad Request: unsupported MCP-Protocol-Version " + version +
                                            "; this server speaks " +
                                            mcp::supported_versions_json()));
      }
      headers.emplace_back("Mcp-Session-Id", session->id());
    } else if (stateless) {
      if (auto refusal = check_modern_headers(request, *message, modern)) {
        return out.send(*refusal);
      }
      session = sessions_.stateless_lane(user);
    } else if (message->method == "initialize") {
      session = sessions_.create(user);
      created = true;
      headers.emplace_back("Mcp-Session-Id", session->id());
    } else {
      return out.send(rpc_error_reply(
          400, message->id_json.empty() ? "null" : message->id_json,
          mcp::RpcErrorCode::invalid_request,
          "Bad Request: no Mcp-Session-Id header: send initialize first and echo the "
          "Mcp-Session-Id it returns (2025-11-25), or carry _meta \"" +
              std::string(mcp::kProtocolVersionMetaKey) + "\": \"" +
              std::string(mcp::kModernVersion) + "\" with the Mcp-Method header (" +
              std::string(mcp::kModernVersion) + ")"));
    }
  } catch (const TooManySessionsError& e) {
    HttpReply reply = rpc_error_reply(429, message->id_json.empty() ? "null" : message->id_json,
                                      mcp::RpcErrorCode::server_busy, e.what());
    reply.headers.emplace_back("Retry-After", "60");
    return out.send(reply);
  }

  if (message->kind == mcp::IncomingMessage::Kind::notification) {
    session->handle(message, nullptr);
    return out.send(accepted());
  }
  const bool tool_call = message->method == "tools/call";
  if (tool_call) {
    if (auto refusal = limits_.admit(user.user_id)) {
      HttpReply reply = rpc_error_reply(429, message->id_json, mcp::RpcErrorCode::server_busy,
                                        refusal->message);
      reply.headers.emplace_back("Retry-After", std::to_string(refusal->retry_after_s));
      return out.send(reply);
    }
  }
  const bool as_events = tool_call && lists(request.header("accept"), "text/event-stream");
  session->begin_request();
  try {
    answer(*session, message, as_events, std::move(headers), out);
  } catch (...) {
    session->end_request();
    if (tool_call) limits_.finished(user.user_id);
    throw;
  }
  session->end_request();
  if (tool_call) limits_.finished(user.user_id);
  // An initialize that failed leaves no session behind.
  if (created && session->legacy_version() == std::nullopt) {
    sessions_.close(session->id(), user, "its initialize failed");
  }
}

void McpEndpoint::answer(McpHttpSession& session, std::shared_ptr<mcp::IncomingMessage> message,
                         bool as_events, Headers headers, ResponseStream& out) {
  auto reply = std::make_shared<QueuedReply>();
  const std::string id = message->id_json;
  if (!session.handle(message, reply)) {
    return out.send(rpc_error_reply(404, id, mcp::RpcErrorCode::invalid_request,
                                    "Session not found: it ended while this request arrived"));
  }
  if (as_events) {
    headers.emplace_back("Cache-Control", "no-cache");
    headers.emplace_back("X-Accel-Buffering", "no");
    if (!out.begin_events(headers)) return cancel_and_wait(session, *reply);
  }
  auto last_write = std::chrono::steady_clock::now();
  for (;;) {
    const std::optional<QueuedReply::Item> item = reply->next(kPoll);
    if (!item) {
      if (out.client_gone()) {
        logger_.log(plugin::LogLevel::info,
                    "Request " + id + ": the client closed its connection; cancelling");
        return cancel_and_wait(session, *reply);
      }
      if (as_events && std::chrono::steady_clock::now() - last_write > kKeepalive) {
        if (!out.keepalive()) return cancel_and_wait(session, *reply);
        last_write = std::chrono::steady_clock::now();
      }
      continue;
    }
    switch (item->kind) {
      case QueuedReply::Item::Kind::notification:
        if (as_events) {
          if (!out.event(item->line)) return cancel_and_wait(session, *reply);
          last_write = std::chrono::steady_clock::now();
        }
        continue;
      case QueuedReply::Item::Kind::answer:
        if (as_events) {
          out.event(item->line);
          return;
        }
        {
          HttpReply json;
          json.headers = std::move(headers);
          json.body = item->line;
          return out.send(json);
        }
      case QueuedReply::Item::Kind::unanswered:
        // MCP sends a cancelled request no answer, but an HTTP request needs one: say why.
        if (!as_events) {
          HttpReply json = rpc_error_reply(
              session.closed() ? 404 : 200, id, mcp::RpcErrorCode::invalid_request,
              session.closed() ? "Session not found: it ended while this request waited"
                               : "The request was cancelled");
          json.headers = std::move(headers);
          out.send(json);
        }
        return;
    }
  }
}

void McpEndpoint::get(const HttpExchange& request, const SignedInUser& user, ResponseStream& out) {
  const std::string session_id = request.header("mcp-session-id");
  if (session_id.empty()) {
    HttpReply reply = rpc_error_reply(405, "null", mcp::RpcErrorCode::invalid_request,
                                      "Method Not Allowed: GET opens a session's event stream "
                                      "and needs its Mcp-Session-Id (2025-11-25); 2026-07-28 "
                                      "has no GET stream");
    reply.headers.emplace_back("Allow", "POST, DELETE");
    return out.send(reply);
  }
  if (!lists(request.header("accept"), "text/event-stream")) {
    return out.send(rpc_error_reply(406, "null", mcp::RpcErrorCode::invalid_request,
                                    "Not Acceptable: GET /mcp answers with text/event-stream; "
                                    "send Accept: text/event-stream"));
  }
  std::shared_ptr<McpHttpSession> session = sessions_.find(session_id, user);
  if (!session) {
    return out.send(rpc_error_reply(404, "null", mcp::RpcErrorCode::invalid_request,
                                    "Session not found: it ended or was never yours"));
  }
  // One stream per session: each holds a server thread for as long as it is open.
  if (!session->claim_event_stream()) {
    return out.send(rpc_error_reply(409, "null", mcp::RpcErrorCode::invalid_request,
                                    "Conflict: this session's event stream is open already; "
                                    "close it before opening another"));
  }
  struct Release {
    McpHttpSession& session;
    ~Release() { session.release_event_stream(); }
  } release{*session};
  if (!out.begin_events({{"Mcp-Session-Id", session->id()},
                         {"Cache-Control", "no-cache"},
                         {"X-Accel-Buffering", "no"}})) {
    return;
  }
  // This server sends no requests or notifications of its own, so the stream only keeps the
  // connection alive until the session ends or the client leaves. It does not count as use:
  // an open stream alone does not keep a session from idling out.
  auto last_write = std::chrono::steady_clock::now();
  while (!session->wait_closed(kPoll)) {
    if (out.client_gone()) return;
    if (std::chrono::steady_clock::now() - last_write > kKeepalive) {
      if (!out.keepalive()) return;
      last_write = std::chrono::steady_clock::now();
    }
  }
}

void McpEndpoint::remove(const HttpExchange& request, const SignedInUser& user,
                         ResponseStream& out) {
  const std::string session_id = request.header("mcp-session-id");
  if (session_id.empty()) {
    HttpReply reply = rpc_error_reply(405, "null", mcp::RpcErrorCode::invalid_request,
                                      "Method Not Allowed: DELETE ends a session and needs its "
                                      "Mcp-Session-Id");
    reply.headers.emplace_back("Allow", "POST");
    return out.send(reply);
  }
  if (!sessions_.close(session_id, user, "ended by the client (DELETE)")) {
    return out.send(rpc_error_reply(404, "null", mcp::RpcErrorCode::invalid_request,
                                    "Session not found: it ended already or was never yours"));
  }
  HttpReply reply;
  reply.status = 200;
  reply.content_type.clear();
  out.send(reply);
}

}  // namespace kg::team
