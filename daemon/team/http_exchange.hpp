// One HTTP request as the team-mode handlers see it, and their answer: plain data (no Poco
// types), so the MCP endpoint (http/) and the authorization server (oauth/) are tested without
// sockets. http/team_http_server.cpp fills and sends them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kg::team {

struct HttpExchange {
  std::string method;
  std::string path;   // without the query
  std::string query;  // raw, without '?'
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  // The peer's IP address as the server saw it (a proxy's, behind one); per-address limits
  // key on it. Empty when not known (tests handing exchanges in directly, which may leave it
  // out of their braces: hence the initializer).
  std::string client_address = {};

  // The header's value, or empty when absent.
  std::string header(const std::string& lowercase_name) const {
    const auto it = headers.find(lowercase_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Who a request comes from, once its credentials checked out.
struct SignedInUser {
  std::string user_id;  // stable: issuer#subject, or "local" without sign-in
  std::string email;
};

// Why a request's credentials did not check out: status 401 or 403, the WWW-Authenticate
// header's value, and a message for the body.
struct AuthFailure {
  int status = 401;
  std::string www_authenticate;
  std::string message;
};

}  // namespace kg::team
