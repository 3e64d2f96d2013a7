// The seam between the session layer and wherever sandboxes run. The session layer and the warm
// pool open, use and close sandboxes only through SandboxProvider and Sandbox; the providers
// (local/: bubblewrap processes on this machine; kubernetes/: agent-sandbox claims) implement
// them, and nothing above them names a concrete one.
//
// Every sandbox speaks the runtime API of docs/contracts.md §1 (SandboxClient), so a runtime plugin
// drives any of them through the same plugin::SandboxHandle. What only Go runtimes need (the
// binary cache, go mod tidy) is not here: the Go side (daemon/gocache) serves it through
// plugin::HostServices, using the generic host folders and take_file of CallHandle.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "call_handle.hpp"
#include "egress_call.hpp"
#include "host_services.hpp"
#include "output_sink.hpp"
#include "request_canceller.hpp"

namespace kg::sandbox {

// What a call spent waiting on its sandbox: the runtime API requests (and the host services' work
// for the sandbox, such as go mod tidy), in microseconds, and how many requests it took. The rest of the
// call's time is the daemon's own.
struct SandboxWait {
  std::uint64_t us = 0;
  std::uint32_t requests = 0;
};

// Adds one request and its duration to a SandboxWait (null: nothing), however the request ends.
class TimedSandboxWait {
 public:
  explicit TimedSandboxWait(SandboxWait* wait)
      : wait_(wait), started_(std::chrono::steady_clock::now()) {}
  ~TimedSandboxWait() {
    if (wait_ == nullptr) return;
    wait_->us += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                std::chrono::steady_clock::now() - started_)
                                                .count());
    ++wait_->requests;
  }
  TimedSandboxWait(const TimedSandboxWait&) = delete;
  TimedSandboxWait& operator=(const TimedSandboxWait&) = delete;

 private:
  SandboxWait* wait_;
  std::chrono::steady_clock::time_point started_;
};

// What one call's handle may use beside the sandbox; every pointer may be null (not
// cancellable, not tallied).
struct CallServices {
  net::RequestCanceller* canceller = nullptr;
  SandboxWait* wait = nullptr;
  // Whose call it is (SessionOwner::id; empty: the daemon's own user); nullopt for no one's (the
  // warm pool's first command). The first handle for an owner makes the sandbox that owner's for
  // good: a handle for another is refused, so what the host puts in its host folders for one
  // user never meets another user's code (docs/security.md).
  std::optional<std::string> owner;
  // Hears the output of the commands that stream it (the user's program) as it is printed.
  OutputSink* output = nullptr;
};

// What a session asks of a new sandbox.
struct SandboxRequest {
  std::string session_id;  // empty for the warm pool's sandboxes (not yet anyone's)
  std::string runtime;     // the session's runtime (compiled-go, yaegi, auto)
  // Hears what a slow start is waiting for (a claim binding, a pod starting). May be empty.
  std::function<void(std::string_view)> progress;
};

// One running sandbox, owned by one session (or by the warm pool until a session takes it).
// Destroying it releases it: every process in it is killed and its state removed (local), or its
// claim deleted (Kubernetes). Used by one call thread at a time, except interrupt().
class Sandbox {
 public:
  virtual ~Sandbox() = default;

  virtual const std::string& id() const noexcept = 0;
  // False once the sandbox is known to be gone (died, deleted, expired).
  virtual bool alive() = 0;
  // The handle a runtime plugin drives for one call. Throws plugin::SandboxError for an owner
  // the sandbox does not serve (CallServices::owner).
  virtual std::unique_ptr<CallHandle> call_handle(const CallServices& services) = 0;
  // Starts one call's egress accounting (egress_call.hpp): what came before is dropped, and the
  // filter uses `setup` until end_egress_call().
  virtual void begin_egress_call(EgressCallSetup setup) = 0;
  // What the egress filter refused and forwarded since begin_egress_call(); empty where the
  // provider filters egress elsewhere.
  virtual EgressCallReport end_egress_call() = 0;
  // Whether `refuse` sees every Google API request a program here can make (the filter reads
  // them: the local proxy, which terminates TLS for Google API hosts), so an API policy holds.
  virtual bool reads_api_requests() const noexcept = 0;
  // From any thread (daemon shutdown): makes a call in flight fail now. Never throws.
  virtual void interrupt() noexcept = 0;
};

// What /metrics reports of a provider beyond sessions (docs/metrics.md).
struct ProviderMetrics {
  // Kubernetes: this daemon's claims by state ("pending": created, not yet ready; "ready":
  // held by a session or the daemon's warm pool), and the claims that never became ready since
  // the daemon started.
  std::vector<std::pair<std::string, std::uint64_t>> claims;
  std::uint64_t claim_failures = 0;
};

class SandboxProvider {
 public:
  virtual ~SandboxProvider() = default;

  // "local" or "kubernetes": recorded with every session.
  virtual std::string_view name() const noexcept = 0;
  // Starts (or claims) a sandbox and waits until it answers. Throws plugin::SandboxError (with
  // nested causes) saying what failed and what to do. Called from call threads concurrently.
  virtual std::unique_ptr<Sandbox> open(const SandboxRequest& request) = 0;
  // At daemon start: releases what a daemon that died left behind. Returns how many it found.
  virtual int reap_orphans() = 0;
  // What isolation is in force, one line each (for the log and /v1/health).
  virtual std::vector<std::string> isolation_summary() const = 0;
  // Choices in force that weaken isolation, for the log and /v1/health.
  virtual const std::vector<std::string>& warnings() const noexcept = 0;
  // Whether its sandboxes receive host folders (CallHandle::host_folder) and let the host take
  // files out (CallHandle::take_file): host services that need them are offered only then.
  virtual bool gives_host_folders() const noexcept = 0;
  // Its own counts for /metrics; nullopt where it has none (local). From any thread.
  virtual std::optional<ProviderMetrics> metrics() { return std::nullopt; }
};

}  // namespace kg::sandbox
