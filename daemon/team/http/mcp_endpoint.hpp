// `/mcp`: MCP's streamable HTTP transport (docs/contracts.md §7) for both eras.
//
// - 2025-11-25: initialize (POST, no Mcp-Session-Id) makes a session and names it in the
//   answer's Mcp-Session-Id; later POSTs carry it (missing: 400, unknown, ended or another
//   user's: 404); GET opens the session's event stream (it carries only keepalives: this server
//   sends no requests of its own); DELETE ends the session and releases its sandbox.
// - 2026-07-28: stateless POSTs whose MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must
//   match the body (else 400 HeaderMismatch), unknown methods 404 with -32601; they run in the
//   user's stateless lane. GET and DELETE without a session: 405.
// Both: Origin checked (403), the caller authenticated first (401/403 with WWW-Authenticate),
// bodies capped (413), tools/call limited per user (429 with Retry-After), answered as SSE
// (progress events, then the result) when the client accepts it, else as JSON; a client that
// closes the stream cancels its call.
//
// One handler thread per request; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host_services.hpp"
#include "mcp_session_registry.hpp"
#include "request_authenticator.hpp"
#include "response_stream.hpp"
#include "user_call_limits.hpp"

namespace kg::team {

struct EndpointOptions {
  std::string public_url;                    // its origin (and host) is always allowed
  std::string listen;                        // host:port bound; its Host is allowed too
  std::vector<std::string> allowed_origins;  // and these
  std::uint64_t max_request_bytes = 4u << 20;
};

// Reads the request body, at most `limit` bytes. Throws BodyTooLargeError past it.
using BodyReader = std::function<std::string(std::uint64_t limit)>;

class BodyTooLargeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class McpEndpoint {
 public:
  McpEndpoint(EndpointOptions options, RequestAuthenticator& authenticator,
              McpSessionRegistry& sessions, UserCallLimits& limits, plugin::Logger& logger);

  // `request` without its body, which read_body gives when the request is admitted.
  void serve(HttpExchange request, const BodyReader& read_body, ResponseStream& out);

 private:
  // Origin and Host checks against DNS rebinding: a page elsewhere must not reach this server.
  std::optional<HttpReply> refuse_origin(const HttpExchange& request) const;
  void post(const HttpExchange& request, const SignedInUser& user, ResponseStream& out);
  void get(const HttpExchange& request, const SignedInUser& user, ResponseStream& out);
  void remove(const HttpExchange& request, const SignedInUser& user, ResponseStream& out);
  // Runs one request in `session` and sends its answer (SSE or JSON).
  void answer(McpHttpSession& session, std::shared_ptr<mcp::IncomingMessage> message,
              bool as_events, std::vector<std::pair<std::string, std::string>> headers,
              ResponseStream& out);

  EndpointOptions options_;
  RequestAuthenticator& authenticator_;
  McpSessionRegistry& sessions_;
  UserCallLimits& limits_;
  plugin::Logger& logger_;
};

// The problems of a 2026-07-28 request (a method that revision lacks, _meta without a protocol
// version or capabilities, Mcp-* headers unlike the body), as the reply to send; nullopt when it
// may be served. meta_version: the body's _meta protocol version, if any.
std::optional<HttpReply> check_modern_headers(const HttpExchange& request,
                                              const mcp::IncomingMessage& message,
                                              const std::optional<std::string>& meta_version);

// A JSON reply carrying a JSON-RPC error.
HttpReply rpc_error_reply(int status, const std::string& id_json, mcp::RpcErrorCode code,
                          const std::string& message);

}  // namespace kg::team
