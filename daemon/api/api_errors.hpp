// Errors raised by the daemon API layer itself, and the one mapping from any exception to the
// HTTP status + error code + message a client sees (docs/daemon-api.md, "Errors").
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace kg::api {

// The request is not valid JSON or has the wrong shape.
class BadRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The peer is not the daemon's owner (SO_PEERCRED).
class ForbiddenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PayloadTooLargeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RouteNotFoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MethodNotAllowedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ApiError {
  int status = 500;
  std::string code = "internal";
  std::string message;
};

// The only place that turns exceptions into API errors. Never throws.
ApiError map_exception(std::exception_ptr error) noexcept;

}  // namespace kg::api
