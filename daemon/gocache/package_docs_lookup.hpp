// The lookup_package_docs tool's Go side (docs/mcp.md, docs/daemon-api.md
// `/v1/sessions/{id}/docs`): `go doc <package> [<symbol>]` against the curated lockfile, as one
// command for the session's sandbox. The session layer only runs the command it builds: which
// packages may be asked for, how go doc is called and what its failure means are the Go side's.
//
// Made per request on the calling thread; no state beyond the checked request.
#pragma once

#include <string>
#include <vector>

#include "runtime_plugin.hpp"
#include "sandbox_handle.hpp"

namespace kg::sandbox {

class PackageDocsLookup {
 public:
  // Checks the request before any sandbox is touched. Throws plugin::InvalidInputError when
  // package is not one of curated (read_curated_packages) or symbol (empty: the whole package)
  // is not Name or Type.Method.
  PackageDocsLookup(const std::vector<std::string>& curated, std::string package,
                    std::string symbol);

  // `go doc` run in the lockfile folder, so the curated modules resolve; leaves /app alone.
  plugin::CommandSpec command() const;
  // go doc's output. Throws plugin::InvalidInputError with go doc's message when it failed (an
  // unknown symbol, say).
  std::string docs(const plugin::CommandOutcome& outcome) const;

 private:
  std::string package_, symbol_;
};

}  // namespace kg::sandbox
