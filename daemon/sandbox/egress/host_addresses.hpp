// The addresses of this machine's own interfaces: what the egress proxy refuses to connect to
// (docs/egress.md, step 3) and what network = egress's route rules refuse (egress_policy.hpp).
#pragma once

#include <vector>

#include "address_policy.hpp"

namespace kg::sandbox {

using net::IpPrefix;

// Every IPv4/IPv6 address of the calling thread's network namespace's interfaces, as /32 or
// /128 prefixes. Throws std::runtime_error when the interfaces cannot be listed.
std::vector<IpPrefix> host_interface_addresses();

}  // namespace kg::sandbox
