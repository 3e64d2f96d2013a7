// The plain structs the HTTP layer (daemon/team/http) and the authorization server talk in:
// a request as the HTTP layer received it, the reply it should send, and who a bearer token
// belongs to. No Poco types, so either side can change its HTTP library.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kg::team {

struct HttpExchange {                // what the HTTP layer hands over
  std::string method, path, query;   // query raw, without '?'
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  // e.g. Location, WWW-Authenticate, Cache-Control
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// user_id is stable across sign-ins and email changes: "<issuer>#<sub>".
struct SignedInUser {
  std::string user_id;
  std::string email;
};

// Why a request to the resource (/mcp) is refused: 401 (no, unknown, expired, revoked token or
// one for another audience) or 403 (a token without scope mcp). The HTTP layer sends status,
// the WWW-Authenticate header as given, and message as the body.
struct AuthFailure {
  int status;
  std::string www_authenticate;
  std::string message;
};

}  // namespace kg::team
