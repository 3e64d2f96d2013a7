// What every decoder in lib/wire throws when a text is not the message it reads: the message
// says what is wrong in words a client can act on. Each end translates it at its boundary (the
// sandbox server into {"detail": ...} with status 400, the daemon API into its bad_request
// error, the daemon's SandboxClient into a SandboxError). The wording is part of each contract
// (docs/sandbox-api.md, docs/daemon-api.md), so the tests assert it exactly.
#pragma once

#include <stdexcept>
#include <string>

namespace kg::wire {

class MalformedMessage : public std::runtime_error {
 public:
  explicit MalformedMessage(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace kg::wire
