// The seccomp filter every local sandbox runs under, built with libseccomp and handed to
// bubblewrap as BPF (`--seccomp FD`). It refuses (EPERM) what untrusted code never needs and
// what kernel escapes are made of: debugging other processes, mounting, new namespaces, BPF,
// keyrings, perf events, userfaultfd, io_uring, loading kernels or modules, and a few more (see
// the .cpp for the whole list, docs/security.md for why). clone3 gets ENOSYS so that libc and the
// Go runtime fall back to clone, whose flags the filter can inspect. Only the native
// architecture's system calls are allowed at all.
#pragma once

#include <cstdint>
#include <vector>

namespace kg::sandbox {

// The filter as a BPF program. Throws std::runtime_error when libseccomp cannot build it.
std::vector<std::uint8_t> sandbox_seccomp_program();

// A fresh memfd (close-on-exec) holding `program`, positioned at its start: bubblewrap reads and
// closes it. Throws std::runtime_error.
int seccomp_program_fd(const std::vector<std::uint8_t>& program);

}  // namespace kg::sandbox
