// What the hostile egress tests that run programs through a real daemon with sealed credentials
// share (test_hostile_egress_pubsub.cpp, _allowlists.cpp, _failures.cpp, _workload.cpp): starting
// the daemon with a few variables of its own, the module mirror that lets its go mod tidy work
// in the test network, one `kode-gopher exec --json` of a program, and the reading of a result's
// `api_calls`. Tests only.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "daemon_fixture.hpp"
#include "json_reader.hpp"

namespace kg::test::egress {

// name → value (nullopt: unset).
using EnvironmentChange = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Starts `daemon` with `change` applied to the environment it inherits; the test process's own
// environment is restored before this returns.
void start_with_environment(DaemonFixture& daemon, const EnvironmentChange& change);

// The variables of a host whose go mod tidy (docs/runtimes.md) takes the modules outside the
// curated lockfile from a module mirror, as an offline host would: the test network reaches no
// module proxy, so GOPROXY names the folder scripts/setup.sh --tests filled for
// tests/hostile/data/pubsub_program.go (KG_PUBSUB_MODULES), and GOSUMDB is off (the mirror's
// modules were verified when setup.sh downloaded them).
EnvironmentChange module_mirror_environment();

// tests/hostile/data/<name> (KG_HOSTILE_DATA_DIR), with `replace` swapped for `with` when given
// (REQUIREs that the text is there).
std::string data_program(const std::string& name, const std::string& replace = "",
                         const std::string& with = "");

struct ProgramRun {
  int exit_code = -1;
  std::string out, err;
  json::ReadJson read;
  rapidjson::Document& result() { return read.document; }
  std::string describe() const;  // for INFO()
};

// Writes `source` as <daemon dir>/<file> and runs `kode-gopher exec --json` of it with `flags`
// (e.g. --session ID, --read-only).
ProgramRun exec_program(const DaemonFixture& daemon, const std::string& file,
                        const std::string& source, const std::vector<std::string>& flags = {});

// One entry of a result's api_calls.calls, as "<method>" or "<method> refused:<rule>".
std::vector<std::string> api_call_lines(const rapidjson::Value& result);

// The string member `name` of `object`, "" when absent.
std::string member_text(const rapidjson::Value& object, const char* name);

bool contains(const std::string& text, const std::string& part);

}  // namespace kg::test::egress
