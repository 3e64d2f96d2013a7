// The OAuth side of the HTTP server, as the server dispatches to it: the well-known metadata
// documents and the /oauth/* endpoints (the authorization server in daemon/team/oauth/).
#pragma once

#include <string_view>

#include "http_exchange.hpp"

namespace kg::team {

class OAuthRoutes {
 public:
  virtual ~OAuthRoutes() = default;
  virtual bool serves(std::string_view path) const = 0;
  // Never throws: errors become replies.
  virtual HttpReply handle(const HttpExchange& request) = 0;
};

}  // namespace kg::team
