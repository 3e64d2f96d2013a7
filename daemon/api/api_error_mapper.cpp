#include "api_errors.hpp"

#include "error_chain.hpp"
#include "runtime_plugin.hpp"
#include "call_credentials.hpp"
#include "session_errors.hpp"
#include "call_files.hpp"
#include "store/store.hpp"

namespace kg::api {

ApiError map_exception(std::exception_ptr error) noexcept {
  try {
    try {
      std::rethrow_exception(error);
    } catch (const BadRequestError& e) {
      return {400, "bad_request", describe_error_chain(e)};
    } catch (const session::UnknownRuntimeError& e) {
      return {400, "bad_request", describe_error_chain(e)};
    } catch (const plugin::InvalidInputError& e) {
      return {400, "invalid_input", describe_error_chain(e)};
    } catch (const ForbiddenError& e) {
      return {403, "forbidden", describe_error_chain(e)};
    } catch (const RouteNotFoundError& e) {
      return {404, "not_found", describe_error_chain(e)};
    } catch (const session::SessionNotFoundError& e) {
      return {404, "not_found", describe_error_chain(e)};
    } catch (const session::CallFileNotFoundError& e) {
      return {404, "not_found", describe_error_chain(e)};
    } catch (const MethodNotAllowedError& e) {
      return {405, "method_not_allowed", describe_error_chain(e)};
    } catch (const session::CancelledError& e) {
      return {409, "cancelled", describe_error_chain(e)};
    } catch (const session::SessionClosedError& e) {
      return {409, "session_closed", describe_error_chain(e)};
    } catch (const PayloadTooLargeError& e) {
      return {413, "payload_too_large", describe_error_chain(e)};
    } catch (const plugin::SandboxError& e) {
      return {502, "sandbox_error", describe_error_chain(e)};
    } catch (const session::RuntimeUnavailableError& e) {
      return {503, "runtime_unavailable", describe_error_chain(e)};
    } catch (const session::CredentialsUnavailableError& e) {
      return {503, "credentials_unavailable", describe_error_chain(e)};
    } catch (const session::QueueFullError& e) {
      return {503, "queue_full", describe_error_chain(e)};
    } catch (const session::ShuttingDownError& e) {
      return {503, "shutting_down", describe_error_chain(e)};
    } catch (const std::exception& e) {
      return {500, "internal", describe_error_chain(e)};
    } catch (...) {
      return {500, "internal", "unknown error"};
    }
  } catch (...) {
    return {500, "internal", "error while reporting an error"};
  }
}

}  // namespace kg::api
