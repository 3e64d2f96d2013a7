// The API policy: narrowing a daemon's policy by a call's (never widening it), and deciding on
// classified requests, including the ones whose project or bucket cannot be told.
#include <doctest/doctest.h>

#include "api_policy.hpp"

using namespace kg::api_policy;
using kg::wire::daemon_api::ExecuteApiPolicy;

namespace {

ApiCall storage_call(std::string method, std::vector<std::string> buckets, bool read) {
  ApiCall call;
  call.service = "storage";
  call.method = std::move(method);
  call.buckets = std::move(buckets);
  call.needs_bucket = true;
  call.read = read;
  if (!call.buckets.empty()) call.resource = "b/" + call.buckets.front() + "/o/x";
  return call;
}

ApiCall project_call(std::string project, bool read) {
  ApiCall call;
  call.service = "pubsub";
  call.method = "google.pubsub.v1.Publisher/Publish";
  call.project = project;
  call.resource = "projects/" + project + "/topics/t";
  call.read = read;
  return call;
}

}  // namespace

TEST_CASE("narrowing: read-only once on stays on; allowlists intersect, never widen") {
  const ApiPolicy daemon{.read_only = true, .projects = {"proj-a", "proj-b"}, .buckets = {}};
  SUBCASE("no call policy keeps the daemon's") {
    const auto p = narrow_api_policy(daemon, {});
    CHECK(p.effective.read_only);
    CHECK(p.effective.projects == std::vector<std::string>{"proj-a", "proj-b"});
    CHECK_FALSE(p.read_only_from_call);
  }
  SUBCASE("read_only false cannot turn the daemon's off") {
    const auto p = narrow_api_policy(daemon, ExecuteApiPolicy{.read_only = false});
    CHECK(p.effective.read_only);
  }
  SUBCASE("a call narrows the projects to some of the daemon's") {
    const auto p = narrow_api_policy(daemon, ExecuteApiPolicy{.projects = std::vector<std::string>{"proj-b"}});
    CHECK(p.effective.projects == std::vector<std::string>{"proj-b"});
    CHECK(p.projects_from_call);
  }
  SUBCASE("a project the daemon does not allow is an error naming it") {
    CHECK_THROWS_WITH_AS(
        narrow_api_policy(daemon, ExecuteApiPolicy{.projects = std::vector<std::string>{"proj-b", "other-proj"}}),
        doctest::Contains("other-proj is not in the daemon's [api_policy] projects (proj-a, proj-b)"),
        PolicyWideningError);
  }
  SUBCASE("an empty daemon list means any: the call's list becomes the allowlist") {
    const auto p = narrow_api_policy({}, ExecuteApiPolicy{.read_only = true,
                                                          .buckets = std::vector<std::string>{"b1", "b1"}});
    CHECK(p.effective.buckets == std::vector<std::string>{"b1"});
    CHECK(p.effective.read_only);
    CHECK(p.read_only_from_call);
    CHECK(p.buckets_from_call);
  }
}

TEST_CASE("read-only refuses writes and names who can lift it") {
  const auto from_daemon = narrow_api_policy({.read_only = true}, {});
  CHECK_FALSE(decide(from_daemon, storage_call("storage.objects.get", {"b1"}, true)));
  const auto refused = decide(from_daemon, storage_call("storage.objects.insert", {"b1"}, false));
  REQUIRE(refused);
  CHECK(refused->rule == "read_only");
  CHECK(refused->message.starts_with(
      "kode-gopher API policy: read-only refuses storage.objects.insert on b/b1/o/x"));
  CHECK(refused->message.find("only the daemon's operator") != std::string::npos);
  const auto from_call = narrow_api_policy({}, ExecuteApiPolicy{.read_only = true});
  CHECK(decide(from_call, storage_call("storage.objects.delete", {"b1"}, false))->message.find(
            "without api_policy.read_only") != std::string::npos);
  CHECK_FALSE(decide(narrow_api_policy({}, {}), storage_call("storage.objects.delete", {"b1"}, false)));
}

TEST_CASE("the bucket allowlist: every named bucket listed; an untold bucket refused") {
  const auto policy = narrow_api_policy({.buckets = {"b1", "b2"}}, {});
  CHECK_FALSE(decide(policy, storage_call("storage.objects.get", {"b1"}, true)));
  const auto other = decide(policy, storage_call("storage.objects.get", {"b3"}, true));
  REQUIRE(other);
  CHECK(other->rule == "buckets");
  CHECK(other->message.find("bucket b3 is not in the daemon's [api_policy] buckets (b1, b2)") != std::string::npos);
  // A rewrite from a listed bucket into another one names both.
  CHECK(decide(policy, storage_call("storage.objects.rewrite", {"b1", "b9"}, false)));
  const auto batch = decide(policy, storage_call("storage.batch", {}, false));
  REQUIRE(batch);
  CHECK(batch->message.find("cannot tell which bucket storage.batch uses") != std::string::npos);
  // Listing a project's buckets touches no bucket; other services are not storage.
  ApiCall list = storage_call("storage.buckets.list", {}, true);
  list.needs_bucket = false;
  CHECK_FALSE(decide(policy, list));
  CHECK_FALSE(decide(policy, project_call("any-project", false)));
}

TEST_CASE("the project allowlist: named projects listed; an untold project refused") {
  const auto policy = narrow_api_policy({.projects = {"proj-a"}}, {});
  CHECK_FALSE(decide(policy, project_call("proj-a", false)));
  const auto other = decide(policy, project_call("proj-z", true));
  REQUIRE(other);
  CHECK(other->rule == "projects");
  CHECK(other->message.find("project proj-z is not in") != std::string::npos);
  // A storage object request names a bucket, not a project.
  const auto untold = decide(policy, storage_call("storage.objects.get", {"b1"}, true));
  REQUIRE(untold);
  CHECK(untold->message.find("cannot tell the project of storage.objects.get on b/b1/o/x") != std::string::npos);
  CHECK(untold->message.find("list its buckets") != std::string::npos);
  // ... unless the bucket allowlist lists its bucket.
  const auto both = narrow_api_policy({.projects = {"proj-a"}, .buckets = {"b1"}}, {});
  CHECK_FALSE(decide(both, storage_call("storage.objects.get", {"b1"}, true)));
  // The billing project (userProject) must be listed too.
  ApiCall billed = storage_call("storage.objects.get", {"b1"}, true);
  billed.billing_project = "proj-z";
  CHECK(decide(both, billed)->message.find("project proj-z") != std::string::npos);
}

TEST_CASE("a request that cannot be classified for certain is refused by whichever rule applies") {
  ApiCall ambiguous = storage_call("storage.objects.get", {"b1"}, false);
  ambiguous.ambiguous_because = "its query names userProject more than once";
  // No rule: nothing needs to know, so nothing is refused.
  CHECK_FALSE(decide(narrow_api_policy({}, {}), ambiguous));
  const auto read_only = decide(narrow_api_policy({}, ExecuteApiPolicy{.read_only = true}), ambiguous);
  REQUIRE(read_only);
  CHECK(read_only->rule == "read_only");
  CHECK(read_only->message.find("cannot classify storage.objects.get on b/b1/o/x: its query names "
                                "userProject more than once") != std::string::npos);
  CHECK(read_only->message.find("this call's api_policy.read_only") != std::string::npos);
  // Listed bucket, listed project: still refused, since the reading it was checked on may not be
  // the one the server makes.
  const auto buckets = decide(narrow_api_policy({.buckets = {"b1"}}, {}), ambiguous);
  REQUIRE(buckets);
  CHECK(buckets->rule == "buckets");
  ApiCall project = project_call("proj-a", true);
  project.ambiguous_because = "its path has a \"..\" segment";
  const auto projects = decide(narrow_api_policy({.projects = {"proj-a"}}, {}), project);
  REQUIRE(projects);
  CHECK(projects->rule == "projects");
  CHECK(projects->message.find("the daemon's [api_policy] projects") != std::string::npos);
  // Its service is in doubt as well (DELETE /x/../storage/v1/b/other/o/obj on
  // www.googleapis.com seems to be service x), so a bucket allowlist refuses it too.
  const auto any_service = decide(narrow_api_policy({.buckets = {"b1"}}, {}), project);
  REQUIRE(any_service);
  CHECK(any_service->rule == "buckets");
}
