#include "offered_runtimes.hpp"

#include <algorithm>

#include "json_members.hpp"

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

std::optional<OfferedRuntimes> offered_runtimes_from(const rapidjson::Value& plugins_answer) {
  const rapidjson::Value* runtimes = json::find_member(plugins_answer, "runtimes");
  if (runtimes == nullptr || !runtimes->IsArray()) return std::nullopt;
  OfferedRuntimes offered;
  for (const rapidjson::Value& runtime : runtimes->GetArray()) {
    const std::string name = json::string_member(runtime, "name");
    if (name.empty()) continue;
    offered.callable.push_back(name);
    offered.descriptions.emplace_back(name, json::string_member(runtime, "description"));
    const rapidjson::Value* is_default = json::find_member(runtime, "default");
    if (is_default != nullptr && is_default->IsBool() && is_default->GetBool()) {
      offered.default_name = name;
    }
    const rapidjson::Value* chooses = json::find_member(runtime, "chooses");
    if (chooses == nullptr || !chooses->IsArray()) {
      offered.plugin_runtimes.push_back(name);
      continue;
    }
    for (const rapidjson::Value& choice : chooses->GetArray()) {
      if (choice.IsString()) offered.auto_chooses.emplace_back(choice.GetString());
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
