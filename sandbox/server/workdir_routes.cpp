// GET / (the readiness probe) and POST /reset (empty the workdir).
#include "sandbox_api/workdir_answers.hpp"
#include "sandbox_routes.hpp"
#include "workdir_reset.hpp"

namespace kg::sandbox {

void serve_status(RouteContext& context, Exchange& exchange) {
  const wire::sandbox_api::StatusAnswer answer{"ok", "kode-gopher-sandbox",
                                               KG_SANDBOX_SERVER_VERSION,
                                               context.confinement.workdir().string()};
  send_json(exchange.response, 200, wire::sandbox_api::encode_status_answer(answer));
}

void serve_reset(RouteContext& context, Exchange& exchange) {
  discard_rest_of_body(exchange);
  const std::uint64_t removed = remove_workdir_contents(context.confinement.workdir());
  send_json(exchange.response, 200, wire::sandbox_api::encode_reset_answer({removed}));
}

}  // namespace kg::sandbox
