// `kode-gopher docs PACKAGE [SYMBOL]`: the Go documentation of a curated package, or of one
// symbol in it, as the MCP tool lookup_package_docs gives it (POST /v1/sessions/{id}/docs,
// docs/daemon-api.md): `go doc` in a sandbox, against the versions `exec` builds with. Without a
// symbol the daemon answers a short index of the package; a name go doc does not know is the
// daemon's invalid_input, whose message suggests the near names (exit 64, like every 4xx).
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "command_session.hpp"
#include "commands.hpp"
#include "daemon_api/package_docs.hpp"
#include "daemon_connection.hpp"
#include "form_encoding.hpp"
#include "json_text.hpp"

namespace kg::cli {
namespace {

struct DocsOptions {
  std::string package;
  std::string symbol;      // empty: the package's index
  std::string session_id;  // empty: a session opened for this lookup
  bool json = false;
};

int run_docs(const GlobalOptions& globals, const DocsOptions& options) {
  const DaemonConnection connection = open_daemon_connection(globals, std::cerr);
  std::optional<CommandSession> own_session;
  std::string session_id = options.session_id;
  if (session_id.empty()) {
    own_session.emplace(connection, globals, std::cerr);
    session_id = own_session->id();
  }
  wire::daemon_api::DocsRequest request{options.package, std::nullopt};
  if (!options.symbol.empty()) request.symbol = options.symbol;
  const rapidjson::Document answer = with_daemon(connection, globals, std::cerr, [&] {
    // go doc runs in the session's sandbox, which may still be starting.
    return connection.client.post("/v1/sessions/" + net::percent_encode(session_id) + "/docs",
                                  wire::daemon_api::encode_docs_request(request),
                                  std::chrono::minutes(5));
  });
  if (options.json) {
    std::cout << pretty_json(answer) << '\n';
    return 0;
  }
  std::cout << render_docs(wire::daemon_api::decode_docs_answer(answer));
  return 0;
}

}  // namespace

std::string render_docs(const wire::daemon_api::DocsAnswer& answer) {
  if (answer.docs.empty() || answer.docs.back() == '\n') return answer.docs;
  return answer.docs + '\n';
}

void add_docs_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto options = std::make_shared<DocsOptions>();
  CLI::App* docs = app.add_subcommand(
      "docs", "Show the Go documentation of a curated package, or of one symbol in it (go doc, "
              "the versions exec builds with)");
  docs->add_option("package", options->package,
                   "A curated package's import path, e.g. cloud.google.com/go/storage (the "
                   "daemon lists them when given another)")
      ->required()
      ->type_name("PACKAGE");
  docs->add_option("symbol", options->symbol,
                   "A function, type or method, e.g. NewClient or Client.Bucket; without it, a "
                   "short index of the package. A name go doc does not know is refused with the "
                   "near names")
      ->type_name("SYMBOL");
  docs->add_flag("--json", options->json, "Print the daemon's JSON {package, symbol?, docs}");
  docs->add_option("--session", options->session_id,
                   "Look up in this open session's sandbox (see `kode-gopher sessions`); "
                   "default: a session opened for this lookup and closed after it")
      ->type_name("ID");
  docs->callback([&globals, &action, options] {
    action = [&globals, options] { return run_docs(globals, *options); };
  });
}

}  // namespace kg::cli
