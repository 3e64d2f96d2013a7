// The runtimes the daemon offers, as its GET /v1/plugins says (docs/daemon-api.md): no runtime
// name is compiled into mcp/. Each runtime plugin declares its names and the config orders auto
// (docs/configuration.md, "Runtimes"), so the tool's schemas and description are made from the
// daemon's answer (with the daemon's [limits], which the description states): the `runtime` enum of execute_go_code's input (what a call may ask for) and
// output (what ran a call: auto always resolves to one of the plugins' runtimes).
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "session_backend.hpp"

namespace kg::mcp {

struct OfferedRuntimes {
  std::vector<std::string> callable;         // every name a call may ask for, auto included
  std::vector<std::string> plugin_runtimes;  // callable without auto: what a result may name
  std::vector<std::string> auto_chooses;     // what auto chooses between, in order; empty: no auto
  std::string default_name;                  // the daemon's [runtime] default
  // name -> what it does (its plugin's description line, or auto's choice), in callable order.
  std::vector<std::pair<std::string, std::string>> descriptions;
  // The daemon's [limits] a call runs under, from the same answer; nullopt from a daemon that
  // does not send them (the description then states the defaults as such).
  std::optional<wire::daemon_api::CallLimits> limits;

  bool can_call(std::string_view name) const;
  // What the daemon says about a runtime not on the list (the same words).
  std::string unavailable_message(std::string_view name) const;
};

// OfferedRuntimes from a GET /v1/plugins answer (or --describe-runtimes').
OfferedRuntimes offered_runtimes_from(const wire::daemon_api::PluginsListing& listing);

// The names joined with ", ".
std::string join_names(const std::vector<std::string>& names);

// Asks the backend once and keeps the answer for the connection's life (the daemon's plugins do
// not change while it runs); an unreachable daemon is asked again next time. tools/list asks on
// the reading thread and a call on the worker, so get() is guarded and any thread may call it.
class OfferedRuntimesCache {
 public:
  explicit OfferedRuntimesCache(SessionBackend& backend) : backend_(backend) {}

  // nullopt when the daemon cannot be reached or does not say (then the tool takes any name and
  // the daemon answers for it). Never throws.
  std::optional<OfferedRuntimes> get() noexcept;

 private:
  SessionBackend& backend_;
  std::mutex mutex_;
  std::optional<OfferedRuntimes> offered_;
};

}  // namespace kg::mcp
