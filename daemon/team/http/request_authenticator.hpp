// Who sent a request to /mcp: the OAuth resource-server check (auth = oauth), or, on a loopback
// address with auth = none, always the one user "local". The endpoint asks before it reads
// anything else of the request.
#pragma once

#include <variant>

#include "http_exchange.hpp"

namespace kg::team {

class RequestAuthenticator {
 public:
  virtual ~RequestAuthenticator() = default;
  virtual std::variant<SignedInUser, AuthFailure> authenticate(const HttpExchange& request) = 0;
};

// auth = none: everyone who can connect (loopback only, see team_settings.hpp) is "local".
class LocalUserAuthenticator final : public RequestAuthenticator {
 public:
  std::variant<SignedInUser, AuthFailure> authenticate(const HttpExchange&) override {
    return SignedInUser{"local", "local"};
  }
};

}  // namespace kg::team
