#include "runtime_names_check.hpp"

#include <algorithm>

namespace kg::config {
namespace {

constexpr std::string_view kAuto = "auto";

std::string joined(const std::vector<std::string>& names) {
  if (names.empty()) return "none (no runtime plugin is loaded)";
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool offered(const std::vector<std::string>& runtimes, const std::string& name) {
  return std::find(runtimes.begin(), runtimes.end(), name) != runtimes.end();
}

int line_of(const DaemonConfig& config, const std::string& key) {
  const auto found = config.key_lines.find(key);
  return found == config.key_lines.end() ? 0 : found->second;
}

}  // namespace

std::vector<ConfigIssue> runtime_name_issues(const DaemonConfig& config,
                                             const std::vector<std::string>& offered_runtimes) {
  std::vector<ConfigIssue> issues;
  const auto error = [&](const std::string& key, std::string message) {
    issues.push_back({ConfigIssue::Severity::error, config.source_path, key, std::move(message),
                      line_of(config, key)});
  };
  const std::vector<std::string>& order = config.auto_order;
  bool order_usable = order.size() == 2 && order[0] != order[1];
  if (!order.empty() && !order_usable) {
    error("runtime.auto_order",
          "must be two different runtime names, the first tried first (for example \"yaegi, "
          "compiled-go\"), or empty for no auto; got " + std::to_string(order.size()) +
              (order.size() == 1 ? " name" : " names"));
  }
  for (const auto& name : order) {
    if (offered(offered_runtimes, name)) continue;
    // Not an error of the file: a plugin may be left out of an install on purpose.
    const bool was_usable = order_usable;
    order_usable = false;
    issues.push_back({ConfigIssue::Severity::warning, config.source_path, "runtime.auto_order",
                      "no loaded runtime plugin offers \"" + name +
                          "\", so calls cannot ask for auto; the loaded plugins offer: " +
                          joined(offered_runtimes),
                      line_of(config, "runtime.auto_order")});
    if (!was_usable) break;
  }
  const std::string& fallback = config.default_runtime;
  if (fallback == kAuto) {
    if (order.empty()) {
      error("runtime.default", "is auto, but runtime.auto_order is empty, so there is no auto; "
                               "name a runtime (" + joined(offered_runtimes) +
                                   ") or set runtime.auto_order");
    } else if (!order_usable) {
      error("runtime.default", "is auto, but auto cannot run (see runtime.auto_order); name a "
                               "runtime the loaded plugins offer: " + joined(offered_runtimes));
    }
  } else if (!offered(offered_runtimes, fallback)) {
    error("runtime.default", "no loaded runtime plugin offers \"" + fallback +
                                 "\"; the loaded plugins offer: " + joined(offered_runtimes) +
                                 (order_usable ? ", and auto" : ""));
  }
  return issues;
}

}  // namespace kg::config
