#include "sandbox_claim.hpp"
#include "json_reader.hpp"
#include "utc_time.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <ctime>
#include <stdexcept>

namespace kg::sandbox {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_lifecycle(Writer& out, std::chrono::system_clock::time_point shutdown_time) {
  out.Key("lifecycle");
  out.StartObject();
  out.Key("shutdownTime");
  out.String(utc::to_rfc3339(shutdown_time).c_str());
  out.Key("shutdownPolicy");
  out.String("Delete");
  out.EndObject();
}

const rapidjson::Value* member(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(key);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string text(const rapidjson::Value* object, const char* key) {
  if (object == nullptr) return {};
  const auto* value = member(*object, key);
  return value != nullptr && value->IsString() ? value->GetString() : std::string();
}

std::vector<std::string> strings(const rapidjson::Value* object, const char* key) {
  std::vector<std::string> out;
  const auto* list = object == nullptr ? nullptr : member(*object, key);
  if (list == nullptr || !list->IsArray()) return out;
  for (const auto& item : list->GetArray()) {
    if (item.IsString()) out.emplace_back(item.GetString());
  }
  return out;
}

std::optional<Condition> condition(const rapidjson::Value* status, const char* type) {
  const auto* list = status == nullptr ? nullptr : member(*status, "conditions");
  if (list == nullptr || !list->IsArray()) return std::nullopt;
  for (const auto& item : list->GetArray()) {
    if (text(&item, "type") == type) {
      return Condition{type, text(&item, "status"), text(&item, "reason"), text(&item, "message")};
    }
  }
  return std::nullopt;
}

rapidjson::Document parse_object(std::string_view json, const char* what) {
  json::ReadJson read = json::read_json(json, json::kUpstreamReplyLimits);
  rapidjson::Document& doc = read.document;
  if (!doc.IsObject()) {
    throw std::runtime_error(std::string("The API server's ") + what + " is not a JSON object: " +
                             std::string(json.substr(0, 200)) +
                             (read.refused ? " (it " + read.refused->describe() + ")" : ""));
  }
  return std::move(read.document);
}

}  // namespace

std::string claim_body(const ClaimRequest& request) {
  rapidjson::StringBuffer buffer;
  Writer out(buffer);
  out.StartObject();
  out.Key("apiVersion");
  out.String("extensions.agents.x-k8s.io/v1beta1");
  out.Key("kind");
  out.String("SandboxClaim");
  out.Key("metadata");
  out.StartObject();
  out.Key("generateName");
  out.String("sandbox-claim-");
  out.Key("labels");
  out.StartObject();
  out.Key(kCreatedByLabel.data(), static_cast<rapidjson::SizeType>(kCreatedByLabel.size()));
  out.String(kCreatedByValue.data(), static_cast<rapidjson::SizeType>(kCreatedByValue.size()));
  out.Key(kDaemonLabel.data(), static_cast<rapidjson::SizeType>(kDaemonLabel.size()));
  out.String(request.daemon_id.c_str());
  out.EndObject();
  if (!request.session_id.empty()) {
    out.Key("annotations");
    out.StartObject();
    out.Key(kSessionAnnotation.data(), static_cast<rapidjson::SizeType>(kSessionAnnotation.size()));
    out.String(request.session_id.c_str());
    out.EndObject();
  }
  out.EndObject();
  out.Key("spec");
  out.StartObject();
  out.Key("warmPoolRef");
  out.StartObject();
  out.Key("name");
  out.String(request.warm_pool.c_str());
  out.EndObject();
  write_lifecycle(out, request.shutdown_time);
  out.EndObject();
  out.EndObject();
  return buffer.GetString();
}

std::string lease_patch_body(std::chrono::system_clock::time_point shutdown_time) {
  rapidjson::StringBuffer buffer;
  Writer out(buffer);
  out.StartObject();
  out.Key("spec");
  out.StartObject();
  write_lifecycle(out, shutdown_time);
  out.EndObject();
  out.EndObject();
  return buffer.GetString();
}

std::string daemon_claims_selector(std::string_view daemon_id) {
  // "agents.x-k8s.io/created-by=kode-gopher,kode-gopher/daemon-id=<id>", URL-encoded ('/' and
  // '=' and ','; the id is a DNS-1123 label, safe as it is).
  return "agents.x-k8s.io%2Fcreated-by%3Dkode-gopher%2Ckode-gopher%2Fdaemon-id%3D" +
         std::string(daemon_id);
}

ClaimState parse_claim(std::string_view json) {
  const auto doc = parse_object(json, "SandboxClaim");
  ClaimState claim;
  const auto* metadata = member(doc, "metadata");
  claim.name = text(metadata, "name");
  claim.deleting = metadata != nullptr && member(*metadata, "deletionTimestamp") != nullptr;
  const auto* status = member(doc, "status");
  const auto* bound = status == nullptr ? nullptr : member(*status, "sandbox");
  claim.sandbox_name = text(bound, "name");
  claim.service_fqdn = text(bound, "serviceFQDN");
  claim.pod_ips = strings(bound, "podIPs");
  claim.ready = condition(status, "Ready");
  return claim;
}

SandboxState parse_sandbox(std::string_view json) {
  const auto doc = parse_object(json, "Sandbox");
  SandboxState sandbox;
  const auto* metadata = member(doc, "metadata");
  sandbox.name = text(metadata, "name");
  sandbox.deleting = metadata != nullptr && member(*metadata, "deletionTimestamp") != nullptr;
  const auto* status = member(doc, "status");
  sandbox.ready_condition = condition(status, "Ready");
  sandbox.ready = sandbox.ready_condition && sandbox.ready_condition->status == "True";
  sandbox.finished = condition(status, "Finished");
  if (sandbox.finished && sandbox.finished->status != "True") sandbox.finished.reset();
  sandbox.service_fqdn = text(status, "serviceFQDN");
  sandbox.pod_ips = strings(status, "podIPs");
  return sandbox;
}

std::vector<std::string> parse_item_names(std::string_view json) {
  const auto doc = parse_object(json, "list");
  std::vector<std::string> names;
  const auto* items = member(doc, "items");
  if (items == nullptr || !items->IsArray()) return names;
  for (const auto& item : items->GetArray()) {
    const std::string name = text(member(item, "metadata"), "name");
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

std::string parse_warm_pool_template(std::string_view json) {
  const auto doc = parse_object(json, "SandboxWarmPool");
  const auto* spec = member(doc, "spec");
  return text(spec == nullptr ? nullptr : member(*spec, "sandboxTemplateRef"), "name");
}

std::string parse_template_runtime_class(std::string_view json) {
  const auto doc = parse_object(json, "SandboxTemplate");
  const auto* spec = member(doc, "spec");
  const auto* pod = spec == nullptr ? nullptr : member(*spec, "podTemplate");
  const auto* pod_spec = pod == nullptr ? nullptr : member(*pod, "spec");
  return text(pod_spec, "runtimeClassName");
}

std::optional<std::string> claim_failure(const ClaimState& claim, std::string_view namespace_,
                                         std::string_view warm_pool) {
  const std::string where = "SandboxClaim " + claim.name + " in namespace " + std::string(namespace_);
  if (claim.deleting) return where + " is being deleted";
  if (!claim.ready || claim.ready->status == "True") return std::nullopt;
  const std::string& reason = claim.ready->reason;
  const std::string said = claim.ready->message.empty() ? "" : " (" + claim.ready->message + ")";
  if (reason == "WarmPoolNotFound") {
    return "SandboxWarmPool \"" + std::string(warm_pool) + "\" does not exist in namespace " +
           std::string(namespace_) + said + ": apply the manifests that create it " +
           "(docs/kubernetes.md), or set [kubernetes] warm_pool and namespace to a pool that exists";
  }
  if (reason == "TemplateNotFound") {
    return "The SandboxTemplate of warm pool \"" + std::string(warm_pool) +
           "\" does not exist in namespace " + std::string(namespace_) + said +
           ": create the template the pool's spec.sandboxTemplateRef names";
  }
  if (reason == "InvalidMetadata" || reason == "EnvVarsInjectionRejected" ||
      reason == "VolumeClaimTemplatesError") {
    return where + " was rejected by the agent-sandbox controller: " + reason + said;
  }
  if (reason == "ClaimExpired" || reason == "SandboxExpired") {
    return where + " expired (" + reason + ")" + said +
           ": its lease ran out before it was renewed";
  }
  return std::nullopt;
}

std::optional<std::string> sandbox_failure(const SandboxState& sandbox, std::string_view namespace_) {
  const std::string where = "Sandbox " + sandbox.name + " in namespace " + std::string(namespace_);
  const std::string look = ": see kubectl -n " + std::string(namespace_) + " describe sandbox " +
                           sandbox.name + ", and its pod's events and logs";
  if (sandbox.finished) {
    const std::string said = sandbox.finished->message.empty() ? "" : " (" + sandbox.finished->message + ")";
    return where + ": its pod ended before it was ready (" + sandbox.finished->reason + ")" + said +
           look;
  }
  if (sandbox.ready_condition && sandbox.ready_condition->status == "False" &&
      sandbox.ready_condition->reason == "SandboxExpired") {
    return where + " expired (SandboxExpired) before it was ready" + look;
  }
  return std::nullopt;
}

}  // namespace kg::sandbox
