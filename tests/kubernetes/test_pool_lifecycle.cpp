// The warm pool against the real agent-sandbox controller (v1.0.1), each case on a pool and
// template of its own made from the manifests' (manifests/base/sandbox-warm-pool.yaml,
// sandbox-template.yaml) with one change, so the shared pool the other cases claim from is left
// alone: a pool whose pods crash at their start fails a call at once, not at claim_timeout_s; and
// a template change (an upgrade's new image) replaces the pool's unclaimed sandboxes under the
// manifests' updateStrategy while a claimed one, and its session, live on (docs/kubernetes.md,
// "Upgrading").
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "daemon_fixture.hpp"
#include "kubernetes_daemon.hpp"
#include "test_cluster.hpp"

namespace kg::test {
namespace {

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

void set_string(rapidjson::Document& doc, rapidjson::Value& object, const char* key,
                const std::string& value) {
  rapidjson::Value text(value.c_str(), doc.GetAllocator());
  if (object.HasMember(key)) {
    object[key] = text;
  } else {
    object.AddMember(rapidjson::Value(key, doc.GetAllocator()), text, doc.GetAllocator());
  }
}

// A copy of one of the manifests' objects under `name`: apiVersion, kind, its spec, no server
// fields.
rapidjson::Document copy_of(const std::string& path, const std::string& name) {
  const auto original = TestCluster::get().api_json(path);
  rapidjson::Document copy(rapidjson::kObjectType);
  auto& alloc = copy.GetAllocator();
  copy.AddMember("apiVersion", rapidjson::Value(original["apiVersion"], alloc), alloc);
  copy.AddMember("kind", rapidjson::Value(original["kind"], alloc), alloc);
  rapidjson::Value metadata(rapidjson::kObjectType);
  metadata.AddMember("name", rapidjson::Value(name.c_str(), alloc), alloc);
  copy.AddMember("metadata", metadata, alloc);
  copy.AddMember("spec", rapidjson::Value(original["spec"], alloc), alloc);
  return copy;
}

// A SandboxTemplate and a SandboxWarmPool over it, copies of the manifests' with `change` made to
// the template, created on construction and deleted (the pool's sandboxes and pods with it, by
// garbage collection) on destruction.
class PoolCopy {
 public:
  PoolCopy(const std::string& name, const std::function<void(rapidjson::Document&)>& change)
      : pool_(name + "-pool"), template_(name) {
    auto& cluster = TestCluster::get();
    auto sandbox_template = copy_of(templates_path() + "/" + TestCluster::kTemplate, template_);
    change(sandbox_template);
    const auto made_template = cluster.api("POST", templates_path(), to_json(sandbox_template));
    REQUIRE_MESSAGE(made_template.status == 201, made_template.body);
    auto pool = copy_of(warm_pools_path() + "/" + TestCluster::kWarmPool, pool_);
    set_string(pool, pool["spec"]["sandboxTemplateRef"], "name", template_);
    const auto made_pool = cluster.api("POST", warm_pools_path(), to_json(pool));
    REQUIRE_MESSAGE(made_pool.status == 201, made_pool.body);
  }
  ~PoolCopy() {
    auto& cluster = TestCluster::get();
    cluster.api("DELETE", warm_pools_path() + "/" + pool_);
    cluster.api("DELETE", templates_path() + "/" + template_);
  }
  const std::string& pool() const { return pool_; }
  const std::string& sandbox_template() const { return template_; }

 private:
  std::string pool_, template_;
};

rapidjson::Value& first_container(rapidjson::Document& sandbox_template) {
  return sandbox_template["spec"]["podTemplate"]["spec"]["containers"][0];
}

// The sandboxes the warm pool `pool` owns (its unclaimed ones), by name, with their image.
std::map<std::string, std::string> pool_sandboxes(const std::string& pool) {
  std::map<std::string, std::string> owned;
  auto list = TestCluster::get().api_json(sandboxes_path());
  for (const auto& item : list["items"].GetArray()) {
    const auto& metadata = item["metadata"];
    if (!metadata.HasMember("ownerReferences") || metadata.HasMember("deletionTimestamp")) continue;
    for (const auto& owner : metadata["ownerReferences"].GetArray()) {
      if (std::string(owner["kind"].GetString()) == "SandboxWarmPool" && pool == owner["name"].GetString()) {
        owned[metadata["name"].GetString()] =
            item["spec"]["podTemplate"]["spec"]["containers"][0]["image"].GetString();
      }
    }
  }
  return owned;
}

}  // namespace

TEST_CASE("a warm pool whose pods crash at their start fails the call at once, saying so, long before claim_timeout_s") {
  auto& cluster = TestCluster::get();
  // The manifests' template, but its server refuses its arguments and exits, and the pod is not
  // restarted: its pod fails (with the default restartPolicy Always it would crash-loop, which is
  // not terminal: the claim waits out claim_timeout_s).
  PoolCopy crashing("kg-test-crashing", [](rapidjson::Document& sandbox_template) {
    auto& alloc = sandbox_template.GetAllocator();
    set_string(sandbox_template, sandbox_template["spec"]["podTemplate"]["spec"], "restartPolicy", "Never");
    rapidjson::Value args(rapidjson::kArrayType);
    args.PushBack(rapidjson::Value("--no-such-option", alloc), alloc);
    first_container(sandbox_template).AddMember("args", args, alloc);
  });
  constexpr int kClaimTimeoutS = 120;
  DaemonFixture daemon(kubernetes_daemon("kg-test-crashing", crashing.pool(), kClaimTimeoutS));
  daemon.start();
  const auto session = daemon.open_session();
  const auto started = std::chrono::steady_clock::now();
  const auto answer = daemon.post("/v1/sessions/" + session + "/execute",
                                  R"({"files":{"main.go":"package main\nfunc main() {}\n"}})");
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(answer.body);
  INFO(file_text(daemon.dir() + "/daemon.log"));
  CHECK(answer.status >= 500);
  CHECK(answer.body.find("its pod ended before it was ready (PodFailed)") != std::string::npos);
  CHECK(answer.body.find(std::string("in namespace ") + TestCluster::kNamespace) != std::string::npos);
  CHECK(took < std::chrono::seconds(kClaimTimeoutS / 4));
  MESSAGE("the call failed after "
          << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  // The failed claim is deleted; the daemon keeps serving.
  CHECK(eventually([] { return claims_of("kg-test-crashing").empty(); }, std::chrono::seconds(15)));
  CHECK(daemon.get("/v1/health").status == 200);
  daemon.stop_gracefully();
}

TEST_CASE("a template change replaces the pool's unclaimed sandboxes at once, and a claimed one and its session live on") {
  auto& cluster = TestCluster::get();
  PoolCopy upgraded("kg-test-upgrade", [](rapidjson::Document&) {});
  const auto pool_spec = cluster.api_json(warm_pools_path() + "/" + upgraded.pool());
  // The manifests' own strategy is the one under test.
  REQUIRE(pool_spec["spec"].HasMember("updateStrategy"));
  CHECK(std::string(pool_spec["spec"]["updateStrategy"]["type"].GetString()) == "Recreate");
  const int replicas = pool_spec["spec"]["replicas"].GetInt();
  cluster.wait_for_ready_pool(replicas, 120, upgraded.pool());

  DaemonFixture daemon(kubernetes_daemon("kg-test-upgrade", upgraded.pool()));
  daemon.start();
  const auto session = daemon.open_session();
  REQUIRE(json_string(daemon.execute(session, kHello), "status") == "ok");
  const std::string claim = daemon.json(daemon.get("/v1/sessions/" + session))["sandbox_id"].GetString();
  const std::string claimed = cluster.api_json(claim_path(claim))["status"]["sandbox"]["name"].GetString();
  const std::string old_image = cluster.api_json(sandbox_path(claimed))["spec"]["podTemplate"]["spec"]
                                                ["containers"][0]["image"].GetString();
  // The pool made up for the claimed one.
  cluster.wait_for_ready_pool(replicas, 120, upgraded.pool());
  const auto before = pool_sandboxes(upgraded.pool());
  REQUIRE(before.size() == static_cast<std::size_t>(replicas));
  CHECK(before.count(claimed) == 0);

  // An upgrade's new image: the same one, as if pushed to another registry, so the pod spec
  // changes as an upgrade's does and the pods still run.
  auto sandbox_template = cluster.api_json(templates_path() + "/" + upgraded.sandbox_template());
  const std::string new_image = "registry.invalid/kode-gopher/" + old_image;
  set_string(sandbox_template, first_container(sandbox_template), "image", new_image);
  const auto updated = cluster.api("PUT", templates_path() + "/" + upgraded.sandbox_template(),
                                   to_json(sandbox_template));
  REQUIRE_MESSAGE(updated.status == 200, updated.body);

  // Every unclaimed sandbox of the old template is replaced by one of the new.
  std::map<std::string, std::string> after;
  const bool replaced = eventually(
      [&] {
        after = pool_sandboxes(upgraded.pool());
        if (after.size() != before.size()) return false;
        for (const auto& [name, image] : after) {
          if (before.count(name) != 0 || image != new_image) return false;
        }
        return true;
      },
      std::chrono::seconds(60));
  CAPTURE(to_json(cluster.api_json(warm_pools_path() + "/" + upgraded.pool())["status"]));
  CHECK(replaced);
  cluster.wait_for_ready_pool(replicas, 120, upgraded.pool());

  // The claimed sandbox is the claim's, not the pool's: untouched, with its old image, and the
  // session goes on in it.
  const auto kept = cluster.api_json(sandbox_path(claimed));
  CHECK_FALSE(kept["metadata"].HasMember("deletionTimestamp"));
  CHECK(std::string(kept["spec"]["podTemplate"]["spec"]["containers"][0]["image"].GetString()) == old_image);
  const auto again = daemon.execute(session, kHello);
  CHECK(json_string(again, "status") == "ok");
  CHECK(json_string(again, "stdout") == "hello from a pod\n");
  CHECK(std::string(daemon.json(daemon.get("/v1/sessions/" + session))["sandbox_id"].GetString()) == claim);
  CHECK(std::string(cluster.api_json(claim_path(claim))["status"]["sandbox"]["name"].GetString()) == claimed);
  CHECK(daemon.del("/v1/sessions/" + session).status == 200);
  daemon.stop_gracefully();
}

}  // namespace kg::test
