// The lookup_package_docs tool's Go side (docs/mcp.md, docs/daemon-api.md
// `/v1/sessions/{id}/docs`): `go doc <package> [<symbol>]` against the curated lockfile, as one
// command for the session's sandbox. The session layer only runs the command it builds: which
// packages may be asked for, how go doc is called and what its failure means are the Go side's.
//
// Made per request on the calling thread; no state beyond the checked request.
#pragma once

#include <string>
#include <string_view>
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
  // When a symbol's lookup fails, the command also lists the package's names (and, for
  // Type.Method, the type's methods) to suggest from.
  plugin::CommandSpec command() const;
  // A symbol's go doc output, or a whole package's index (package_docs_text.hpp). Throws
  // plugin::InvalidInputError with go doc's message without the go command's noise when it
  // failed, and for an unknown symbol the near names ("Did you mean ...?").
  std::string docs(const plugin::CommandOutcome& outcome) const;

 private:
  std::vector<std::string> suggestions(std::string_view listing) const;

  std::string package_, symbol_;
};

}  // namespace kg::sandbox
