#include "offered_runtimes.hpp"

#include <algorithm>


namespace kg::mcp {

bool OfferedRuntimes::can_call(std::string_view name) const {
  return std::find(callable.begin(), callable.end(), name) != callable.end();
}

std::string OfferedRuntimes::unavailable_message(std::string_view name) const {
  return "runtime \"" + std::string(name) + "\" is not available; available runtimes: " +
         (callable.empty() ? std::string("none (no runtime plugin is loaded)")
                           : join_names(callable));
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

OfferedRuntimes offered_runtimes_from(const wire::daemon_api::PluginsListing& listing) {
  OfferedRuntimes offered;
  offered.limits = listing.limits;
  for (const auto& runtime : listing.runtimes) {
    offered.callable.push_back(runtime.name);
    offered.descriptions.emplace_back(runtime.name, runtime.description);
    if (runtime.is_default) offered.default_name = runtime.name;
    if (runtime.chooses.empty()) {
      offered.plugin_runtimes.push_back(runtime.name);
    } else {
      offered.auto_chooses.insert(offered.auto_chooses.end(), runtime.chooses.begin(),
                                  runtime.chooses.end());
    }
  }
  return offered;
}

std::optional<OfferedRuntimes> OfferedRuntimesCache::get() noexcept {
  std::lock_guard lock(mutex_);
  if (offered_) return offered_;
  try {
    offered_ = offered_runtimes_from(backend_.plugins());
  } catch (...) {
    // Unreachable or refused: the tool does without and the daemon answers for the name.
  }
  return offered_;
}

}  // namespace kg::mcp
