// [kubernetes] daemon_id's default. It labels every claim this daemon makes, and at start the
// daemon deletes the claims its label names (what a crashed predecessor left), so it must be
// the same across restarts of one daemon and different for two daemons sharing a namespace.
// The host name alone is not: two laptops called "laptop" would delete each other's claims.
// So: the host name as a DNS-1123 label, a '-' and 8 random hex digits, made once and kept in
// the state dir (docs/kubernetes.md).
#pragma once

#include <string>

namespace kg::sandbox {

// The id kept in <state_dir>/kubernetes-daemon-id, made and written there (0600) when the file
// is missing or does not hold a valid id. Throws std::runtime_error (naming the file) when it
// cannot write it.
std::string default_daemon_id(const std::string& state_dir);

// The host name as a DNS-1123 label of at most `max_size` characters ("kode-gopher" when it has
// none that fits).
std::string host_name_label(std::size_t max_size);

}  // namespace kg::sandbox
