// The limits and rights every local sandbox gets (from [limits] and [sandbox]).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "egress_allowlist.hpp"
#include "egress_tls.hpp"

namespace kg::sandbox {

struct LocalSandboxPolicy {
  std::uint64_t memory_bytes = 4ull << 30;  // per sandbox, swap included (cgroup)
  std::uint32_t pids = 512;                 // tasks (processes and threads) per sandbox
  // The host uid the sandbox's user maps to when the daemon runs as root (an unprivileged
  // daemon can only map to itself). nullopt: map to the daemon's own uid.
  std::optional<uid_t> host_uid = 65534;
  // What sandboxes may reach through the egress proxy when the layout has egress_proxy
  // ([sandbox] network = allowlist).
  EgressAllowlist egress_allowlist;
  // The daemon's egress CA and upstream trust (sealed credentials); null: the proxy terminates
  // no TLS and sandboxes get no CA.
  std::shared_ptr<EgressTls> egress_tls;
};

}  // namespace kg::sandbox
