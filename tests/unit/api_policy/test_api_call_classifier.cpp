// The classifier against the requests Google's Go clients send (cloud.google.com/go/storage over
// JSON, XML and gRPC; bigquery; pubsub over gRPC and REST), as the egress proxy hands them over:
// host, method, request target as sent, gRPC flag, x-goog-request-params, small JSON bodies.
#include <doctest/doctest.h>

#include "api_call_classifier.hpp"

using kg::api_policy::ApiCall;
using kg::api_policy::classify_api_call;
using kg::api_policy::is_read_method_name;
using kg::sandbox::ApiRequestFacts;

namespace {

ApiRequestFacts rest(std::string host, std::string method, std::string path, std::string body = {}) {
  ApiRequestFacts facts;
  facts.host = std::move(host);
  facts.http_method = std::move(method);
  facts.path = std::move(path);
  facts.json_body = std::move(body);
  return facts;
}

ApiRequestFacts grpc(std::string host, std::string path, std::string params) {
  ApiRequestFacts facts;
  facts.host = std::move(host);
  facts.http_method = "POST";
  facts.path = std::move(path);
  facts.grpc = true;
  facts.request_params = std::move(params);
  return facts;
}

struct Expected {
  std::string service, method, resource, project;
  std::vector<std::string> buckets;
  bool read;
};

void check(const ApiRequestFacts& facts, const Expected& want) {
  const ApiCall got = classify_api_call(facts);
  INFO(facts.http_method << " " << facts.host << facts.path << " [" << facts.request_params << "]");
  CHECK(got.service == want.service);
  CHECK(got.method == want.method);
  CHECK(got.resource == want.resource);
  CHECK(got.project == want.project);
  CHECK(got.buckets == want.buckets);
  CHECK(got.read == want.read);
}

}  // namespace

TEST_CASE("storage JSON API requests as cloud.google.com/go/storage sends them") {
  const std::string host = "storage.googleapis.com";
  check(rest(host, "GET",
             "/storage/v1/b/my-bucket/o?alt=json&delimiter=&pageToken=&prefix=logs%2F&"
             "prettyPrint=false&projection=full&versions=false"),
        {"storage", "storage.objects.list", "b/my-bucket", "", {"my-bucket"}, true});
  check(rest(host, "POST",
             "/upload/storage/v1/b/my-bucket/o?alt=json&name=dir%2Ffile.txt&prettyPrint=false&"
             "projection=full&uploadType=multipart"),
        {"storage", "storage.objects.insert", "b/my-bucket/o/dir/file.txt", "", {"my-bucket"}, false});
  check(rest(host, "PUT", "/upload/storage/v1/b/my-bucket/o?uploadType=resumable&upload_id=ADPyc"),
        {"storage", "storage.objects.insert", "b/my-bucket", "", {"my-bucket"}, false});
  check(rest(host, "GET", "/storage/v1/b/my-bucket/o/dir%2Ffile.txt?alt=json&prettyPrint=false&projection=full"),
        {"storage", "storage.objects.get", "b/my-bucket/o/dir/file.txt", "", {"my-bucket"}, true});
  check(rest(host, "GET", "/download/storage/v1/b/my-bucket/o/a%20b?alt=media"),
        {"storage", "storage.objects.get", "b/my-bucket/o/a b", "", {"my-bucket"}, true});
  check(rest(host, "DELETE", "/storage/v1/b/my-bucket/o/dir%2Ffile.txt?alt=json&prettyPrint=false"),
        {"storage", "storage.objects.delete", "b/my-bucket/o/dir/file.txt", "", {"my-bucket"}, false});
  check(rest(host, "PATCH", "/storage/v1/b/my-bucket/o/x?alt=json"),
        {"storage", "storage.objects.patch", "b/my-bucket/o/x", "", {"my-bucket"}, false});
  check(rest(host, "POST", "/storage/v1/b/src/o/a/rewriteTo/b/dst/o/b%2Fc?alt=json&prettyPrint=false"),
        {"storage", "storage.objects.rewrite", "b/src/o/a -> b/dst/o/b/c", "", {"src", "dst"}, false});
  check(rest(host, "POST", "/storage/v1/b/my-bucket/o/out/compose?alt=json"),
        {"storage", "storage.objects.compose", "b/my-bucket/o/out", "", {"my-bucket"}, false});
  check(rest(host, "GET",
             "/storage/v1/b?alt=json&pageToken=&prefix=&prettyPrint=false&project=my-project&"
             "projection=full"),
        {"storage", "storage.buckets.list", "projects/my-project", "my-project", {}, true});
  check(rest(host, "POST", "/storage/v1/b?alt=json&prettyPrint=false&project=my-project",
             R"({"name":"new-bucket","location":"EU"})"),
        {"storage", "storage.buckets.insert", "b/new-bucket", "my-project", {"new-bucket"}, false});
  check(rest(host, "GET", "/storage/v1/b/my-bucket?alt=json&prettyPrint=false&projection=full"),
        {"storage", "storage.buckets.get", "b/my-bucket", "", {"my-bucket"}, true});
  check(rest(host, "GET", "/storage/v1/b/my-bucket/iam/testPermissions?permissions=storage.objects.get"),
        {"storage", "storage.buckets.testIamPermissions", "b/my-bucket", "", {"my-bucket"}, true});
  check(rest(host, "PUT", "/storage/v1/b/my-bucket/iam"),
        {"storage", "storage.buckets.setIamPolicy", "b/my-bucket", "", {"my-bucket"}, false});
  check(rest(host, "GET", "/storage/v1/projects/my-project/serviceAccount"),
        {"storage", "storage.projects.serviceAccount.get", "projects/my-project/serviceAccount",
         "my-project", {}, true});
  // www.googleapis.com: the older base the JSON API answers on too.
  check(rest("www.googleapis.com", "GET", "/storage/v1/b/b1/o"),
        {"storage", "storage.objects.list", "b/b1", "", {"b1"}, true});
}

TEST_CASE("storage requests whose bucket cannot be told say so") {
  const ApiCall batch = classify_api_call(rest("storage.googleapis.com", "POST", "/batch/storage/v1"));
  CHECK(batch.method == "storage.batch");
  CHECK(batch.buckets.empty());
  CHECK(batch.needs_bucket);
  CHECK_FALSE(batch.read);
  const ApiCall list = classify_api_call(rest("storage.googleapis.com", "GET", "/storage/v1/b?project=p-123456"));
  CHECK_FALSE(list.needs_bucket);
  const ApiCall create = classify_api_call(grpc("storage.googleapis.com", "/google.storage.v2.Storage/CreateBucket",
                                                "parent=projects%2Fmy-project"));
  CHECK(create.needs_bucket);
  CHECK(create.buckets.empty());
  CHECK(create.project == "my-project");
}

TEST_CASE("storage XML API requests: path-style and bucket host names") {
  // The Go client's NewReader reads objects over the XML API.
  check(rest("storage.googleapis.com", "GET", "/my-bucket/dir/file.txt"),
        {"storage", "storage.objects.get", "b/my-bucket/o/dir/file.txt", "", {"my-bucket"}, true});
  check(rest("storage.googleapis.com", "HEAD", "/my-bucket/file"),
        {"storage", "storage.objects.get", "b/my-bucket/o/file", "", {"my-bucket"}, true});
  check(rest("storage.googleapis.com", "PUT", "/my-bucket/new%20file"),
        {"storage", "storage.objects.insert", "b/my-bucket/o/new file", "", {"my-bucket"}, false});
  check(rest("storage.googleapis.com", "GET", "/my-bucket"),
        {"storage", "storage.objects.list", "b/my-bucket", "", {"my-bucket"}, true});
  check(rest("storage.googleapis.com", "GET", "/my-bucket?list-type=2&prefix=logs%2F&delimiter=%2F"),
        {"storage", "storage.objects.list", "b/my-bucket", "", {"my-bucket"}, true});
  check(rest("storage.googleapis.com", "GET", "/my-bucket?acl"),
        {"storage", "storage.buckets.get", "b/my-bucket", "", {"my-bucket"}, true});
  check(rest("storage.googleapis.com", "PUT", "/my-bucket?cors"),
        {"storage", "storage.buckets.update", "b/my-bucket", "", {"my-bucket"}, false});
  check(rest("my.dotted.bucket.storage.googleapis.com", "DELETE", "/obj"),
        {"storage", "storage.objects.delete", "b/my.dotted.bucket/o/obj", "", {"my.dotted.bucket"}, false});
  check(rest("STORAGE.googleapis.com", "GET", "/"), {"storage", "storage.buckets.list", "", "", {}, true});
}

TEST_CASE("storage gRPC requests name their bucket in x-goog-request-params") {
  const std::string host = "storage.googleapis.com";
  check(grpc(host, "/google.storage.v2.Storage/ReadObject", "bucket=projects%2F_%2Fbuckets%2Fmy-bucket"),
        {"storage", "google.storage.v2.Storage/ReadObject", "projects/_/buckets/my-bucket", "",
         {"my-bucket"}, true});
  check(grpc(host, "/google.storage.v2.Storage/BidiWriteObject", "bucket=projects%2F_%2Fbuckets%2Fmy-bucket"),
        {"storage", "google.storage.v2.Storage/BidiWriteObject", "projects/_/buckets/my-bucket", "",
         {"my-bucket"}, false});
  check(grpc(host, "/google.storage.v2.Storage/ListObjects", "parent=projects%2F_%2Fbuckets%2Fb2"),
        {"storage", "google.storage.v2.Storage/ListObjects", "projects/_/buckets/b2", "", {"b2"}, true});
  check(grpc(host, "/google.storage.v2.Storage/ListBuckets", "project=projects%2Fmy-project"),
        {"storage", "google.storage.v2.Storage/ListBuckets", "projects/my-project", "my-project", {}, true});
  check(grpc(host, "/google.storage.v2.Storage/DeleteObject", "bucket=projects%2F_%2Fbuckets%2Fb2"),
        {"storage", "google.storage.v2.Storage/DeleteObject", "projects/_/buckets/b2", "", {"b2"}, false});
}

TEST_CASE("BigQuery REST requests, with dry runs as reads") {
  const std::string host = "bigquery.googleapis.com";
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/queries?alt=json&prettyPrint=false",
             R"({"query":"SELECT 1","useLegacySql":false,"dryRun":true})"),
        {"bigquery", "bigquery.jobs.query", "projects/my-project/queries", "my-project", {}, true});
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/queries?alt=json",
             R"({"query":"SELECT 1","useLegacySql":false})"),
        {"bigquery", "bigquery.jobs.query", "projects/my-project/queries", "my-project", {}, false});
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/jobs?alt=json&prettyPrint=false",
             R"({"configuration":{"dryRun":true,"query":{"query":"SELECT 1"}},"jobReference":{"projectId":"my-project"}})"),
        {"bigquery", "bigquery.jobs.insert", "projects/my-project/jobs", "my-project", {}, true});
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/jobs?alt=json",
             R"({"configuration":{"query":{"query":"DELETE FROM d.t WHERE true"}}})"),
        {"bigquery", "bigquery.jobs.insert", "projects/my-project/jobs", "my-project", {}, false});
  check(rest(host, "GET", "/bigquery/v2/projects/my-project/queries/job_abc?alt=json&location=US"),
        {"bigquery", "bigquery.jobs.getQueryResults", "projects/my-project/queries/job_abc", "my-project", {}, true});
  check(rest(host, "GET", "/bigquery/v2/projects/my-project/datasets/d/tables/t/data?alt=json&maxResults=10"),
        {"bigquery", "bigquery.tabledata.list", "projects/my-project/datasets/d/tables/t/data", "my-project", {}, true});
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/datasets/d/tables/t/insertAll?alt=json"),
        {"bigquery", "bigquery.tabledata.insertAll", "projects/my-project/datasets/d/tables/t/insertAll",
         "my-project", {}, false});
  check(rest(host, "GET", "/bigquery/v2/projects/my-project/datasets?alt=json"),
        {"bigquery", "bigquery.datasets.list", "projects/my-project/datasets", "my-project", {}, true});
  check(rest(host, "DELETE", "/bigquery/v2/projects/my-project/datasets/d/tables/t"),
        {"bigquery", "bigquery.tables.delete", "projects/my-project/datasets/d/tables/t", "my-project", {}, false});
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/jobs/job_1/cancel"),
        {"bigquery", "bigquery.jobs.cancel", "projects/my-project/jobs/job_1/cancel", "my-project", {}, false});
  check(rest(host, "POST", "/bigquery/v2/projects/my-project/datasets/d/tables/t:getIamPolicy"),
        {"bigquery", "bigquery.tables.getIamPolicy", "projects/my-project/datasets/d/tables/t", "my-project", {}, true});
  // The Storage Read API: a read session creates nothing in the table.
  check(grpc("bigquerystorage.googleapis.com",
             "/google.cloud.bigquery.storage.v1.BigQueryRead/CreateReadSession",
             "read_session.table=projects%2Fmy-project%2Fdatasets%2Fd%2Ftables%2Ft"),
        {"bigquerystorage", "google.cloud.bigquery.storage.v1.BigQueryRead/CreateReadSession",
         "projects/my-project/datasets/d/tables/t", "my-project", {}, true});
  check(grpc("bigquerystorage.googleapis.com",
             "/google.cloud.bigquery.storage.v1.BigQueryWrite/AppendRows",
             "write_stream=projects%2Fmy-project%2Fdatasets%2Fd%2Ftables%2Ft%2Fstreams%2F_default"),
        {"bigquerystorage", "google.cloud.bigquery.storage.v1.BigQueryWrite/AppendRows",
         "projects/my-project/datasets/d/tables/t/streams/_default", "my-project", {}, false});
}

TEST_CASE("Pub/Sub over gRPC and REST") {
  const std::string host = "pubsub.googleapis.com";
  check(grpc(host, "/google.pubsub.v1.Publisher/Publish", "topic=projects%2Fmy-project%2Ftopics%2Fevents"),
        {"pubsub", "google.pubsub.v1.Publisher/Publish", "projects/my-project/topics/events", "my-project", {}, false});
  check(grpc(host, "/google.pubsub.v1.Publisher/GetTopic", "topic=projects%2Fmy-project%2Ftopics%2Fevents"),
        {"pubsub", "google.pubsub.v1.Publisher/GetTopic", "projects/my-project/topics/events", "my-project", {}, true});
  check(grpc(host, "/google.pubsub.v1.Publisher/ListTopics", "project=projects%2Fmy-project"),
        {"pubsub", "google.pubsub.v1.Publisher/ListTopics", "projects/my-project", "my-project", {}, true});
  // Pulling leases messages: it changes the subscription's state, so it is not a read.
  check(grpc(host, "/google.pubsub.v1.Subscriber/StreamingPull",
             "subscription=projects%2Fmy-project%2Fsubscriptions%2Fsub"),
        {"pubsub", "google.pubsub.v1.Subscriber/StreamingPull", "projects/my-project/subscriptions/sub",
         "my-project", {}, false});
  check(rest(host, "POST", "/v1/projects/my-project/topics/events:publish?alt=json"),
        {"pubsub", "pubsub.projects.topics.publish", "projects/my-project/topics/events", "my-project", {}, false});
  check(rest(host, "GET", "/v1/projects/my-project/subscriptions?alt=json"),
        {"pubsub", "pubsub.projects.subscriptions.list", "projects/my-project/subscriptions", "my-project", {}, true});
  check(rest(host, "POST", "/v1/projects/my-project/topics/events:testIamPermissions"),
        {"pubsub", "pubsub.projects.topics.testIamPermissions", "projects/my-project/topics/events",
         "my-project", {}, true});
}

TEST_CASE("userProject is the billing project; other hosts are named by their host") {
  const ApiCall billed = classify_api_call(
      rest("storage.googleapis.com", "GET", "/storage/v1/b/req-pays/o?userProject=payer-project"));
  CHECK(billed.billing_project == "payer-project");
  CHECK(billed.project.empty());
  const ApiCall other = classify_api_call(rest("example.com", "GET", "/v1/things/x"));
  CHECK(other.service == "example.com");
  CHECK(other.method == "example.com.things.get");
  CHECK(other.read);
  const ApiCall odd = classify_api_call(rest("storage.googleapis.com", "OPTIONS", "/b/%zz"));
  CHECK(odd.resource == "b/b/o/%zz");
  CHECK_FALSE(odd.read);
}

TEST_CASE("read RPC names: a read verb first, no write word after") {
  for (const char* name : {"GetTopic", "ListObjects", "ReadObject", "BidiReadObject", "SearchAllResources",
                           "LookupEntry", "BatchGetDocuments", "RunQuery", "RunAggregationQuery",
                           "TestIamPermissions", "GetIamPolicy", "getIamPolicy", "lookup", "GetSettings",
                           "QueryTimeSeries", "Listen"}) {
    INFO(name);
    CHECK(is_read_method_name(name));
  }
  for (const char* name : {"ReadModifyWriteRow", "WriteObject", "CreateTopic", "SetIamPolicy", "Publish",
                           "Pull", "StreamingPull", "Acknowledge", "ExecuteSql", "GetOrCreateThing",
                           "QueryWriteStatus", "Getaway", "Listing", "", "commit"}) {
    INFO(name);
    CHECK_FALSE(is_read_method_name(name));
  }
}

TEST_CASE("requests that could be read two ways are marked ambiguous and never reads") {
  const std::string host = "storage.googleapis.com";
  const auto because = [](const ApiRequestFacts& facts) {
    return classify_api_call(facts).ambiguous_because;
  };
  // Plain requests are not.
  CHECK(because(rest(host, "GET", "/storage/v1/b/b1/o/a%2Fb?userProject=p")).empty());
  CHECK(because(rest(host, "GET", "/b1/dir/.hidden/file")).empty());
  // Dot segments, raw or percent-encoded in any case.
  for (const char* path : {"/storage/v1/b/b1/o/../../b/b2/o/x", "/storage/v1/b/b1/./o",
                           "/storage/v1/b/b1/o/%2e%2E/x", "/storage/v1/b/b1/%2E/o", "/b1/.%2e/b2/x"}) {
    INFO(path);
    const ApiCall call = classify_api_call(rest(host, "GET", path));
    CHECK(call.ambiguous_because.find("segment") != std::string::npos);
    CHECK_FALSE(call.read);
  }
  CHECK(because(rest(host, "GET", "https://other.example/storage/v1/b/b1/o")) ==
        "its request target is not a path starting with '/'");
  CHECK_FALSE(because(rest(host, "OPTIONS", "*")).empty());
  // A query parameter the classifier reads, given twice (encoded or not).
  CHECK(because(rest(host, "GET", "/storage/v1/b?project=a&project=b")) ==
        "its query names project more than once");
  CHECK(because(rest(host, "GET", "/storage/v1/b/b1/o?userProject=a&user%50roject=b")) ==
        "its query names userProject more than once");
  CHECK(because(rest(host, "POST", "/upload/storage/v1/b/b1/o?name=x&name=y")) ==
        "its query names name more than once");
  CHECK(because(rest("pubsub.googleapis.com", "GET", "/v1/topics?project=a&project=b")) ==
        "its query names project more than once");
  // Parameters it does not read may repeat.
  CHECK(because(rest(host, "GET", "/storage/v1/b/b1/o?fields=a&fields=b")).empty());
  // A JSON body member it reads, given twice: a dry run that may not be one is a write.
  const ApiCall dry = classify_api_call(rest("bigquery.googleapis.com", "POST",
                                             "/bigquery/v2/projects/p/queries",
                                             R"({"query":"DELETE FROM d.t","dryRun":true,"dryRun":false})"));
  CHECK(dry.ambiguous_because == "its JSON body names \"dryRun\" more than once");
  CHECK_FALSE(dry.read);
  CHECK(because(rest("bigquery.googleapis.com", "POST", "/bigquery/v2/projects/p/jobs",
                     R"({"configuration":{"dryRun":true,"dryRun":false}})")) ==
        "its JSON body names \"dryRun\" more than once");
  CHECK(because(rest(host, "POST", "/storage/v1/b?project=p", R"({"name":"b1","name":"b2"})")) ==
        "its JSON body names \"name\" more than once");
  CHECK(because(rest("bigquery.googleapis.com", "POST", "/bigquery/v2/projects/p/queries",
                     R"({"query":"SELECT 1","dryRun":true,"labels":{"a":"1"}})")).empty());
  // gRPC request params naming a key twice.
  CHECK(because(grpc(host, "/google.storage.v2.Storage/ReadObject",
                     "bucket=projects%2F_%2Fbuckets%2Fb1&bucket=projects%2F_%2Fbuckets%2Fb2")) ==
        "its x-goog-request-params names bucket more than once");
}
