// GET / (the readiness probe) and POST /reset (empty the workdir).
#include "sandbox_routes.hpp"
#include "workdir_reset.hpp"

namespace kg::sandbox {

void serve_status(RouteContext& context, Exchange& exchange) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("status");
  writer.String("ok");
  writer.Key("server");
  writer.String("kode-gopher-sandbox");
  writer.Key("version");
  writer.String(KG_SANDBOX_SERVER_VERSION);
  writer.Key("workdir");
  write_text(writer, context.confinement.workdir().string());
  writer.EndObject();
  send_json(exchange.response, buffer);
}

void serve_reset(RouteContext& context, Exchange& exchange) {
  discard_rest_of_body(exchange);
  const std::uint64_t removed = remove_workdir_contents(context.confinement.workdir());
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("removed");
  writer.Uint64(removed);
  writer.EndObject();
  send_json(exchange.response, buffer);
}

}  // namespace kg::sandbox
