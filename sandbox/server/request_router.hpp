// Routes each request of the sandbox runtime API to its route function (sandbox_routes.hpp),
// turns whatever the route throws into {"detail": ...} with the matching status — the one
// place where errors become HTTP statuses — and logs one line per request.
//
// Poco's HTTPServer calls createRequestHandler() from its acceptor threads and the handlers on
// its worker threads; the router itself holds only a reference to the shared RouteContext.
#pragma once

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include "route_context.hpp"

namespace kg::sandbox {

class RequestRouter final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit RequestRouter(RouteContext& context) : context_(context) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest& request) override;

 private:
  RouteContext& context_;
};

}  // namespace kg::sandbox
