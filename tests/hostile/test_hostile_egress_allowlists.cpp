// Issue 25's bucket allowlist end to end over REST: a real daemon with creds-adc (sealed, the
// default), fake-gcs-server named storage.googleapis.com behind the egress proxy's TLS, and a
// second bucket the test makes directly on fake-gcs-server (and removes after). A
// call limited to that bucket (`kode-gopher exec --bucket kg-allowed-bucket`) lists its objects
// (forwarded) and uploads to kg-bucket (refused before it leaves): the program gets the 403 with
// the rule, the result warns, `api_calls` lists exactly the two requests with the refusal's rule,
// and fake-gcs-server holds no such object afterwards (docs/api-policy.md). The test talks to the
// HTTPS instance (the one named storage.googleapis.com; the plain one keeps its own buckets).
#include <doctest/doctest.h>

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>

#include <algorithm>
#include <sstream>

#include "adc_daemon_options.hpp"
#include "egress_checks.hpp"
#include "egress_world.hpp"
#include "loopback_google.hpp"
#include "sealed_runs.hpp"
#include "test_network.hpp"

namespace kg::test::egress {
namespace {

constexpr const char* kAllowedBucket = "kg-allowed-bucket";
constexpr const char* kAllowedObject = "listed.txt";
constexpr const char* kIntruder = "intruder.txt";

// One request to fake-gcs-server's HTTPS port, the test's own (not through any proxy; the test
// knows whom it talks to, so it does not verify); returns the status.
int fake_gcs(const std::string& method, const std::string& target, const std::string& body = "",
             const std::string& content_type = "application/json") {
  const Poco::Net::Context::Ptr tls =
      new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", Poco::Net::Context::VERIFY_NONE);
  Poco::Net::HTTPSClientSession session(sandbox::testing::kInternetAddress, kStorageTlsPort, tls);
  session.setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest request(method, target, Poco::Net::HTTPMessage::HTTP_1_1);
  if (!body.empty()) {
    request.setContentType(content_type);
    request.setContentLength(static_cast<std::streamsize>(body.size()));
  }
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::stringstream ignored;
  ignored << in.rdbuf();
  return response.getStatus();
}

// The second bucket, with one object, for the test's life: other tests count kg-bucket alone.
struct AllowedBucket {
  AllowedBucket() {
    REQUIRE(fake_gcs("POST", "/storage/v1/b?project=test-project",
                     std::string(R"({"name":")") + kAllowedBucket + "\"}") == 200);
    REQUIRE(fake_gcs("POST", std::string("/upload/storage/v1/b/") + kAllowedBucket +
                                 "/o?uploadType=media&name=" + kAllowedObject,
                     "listed", "text/plain") == 200);
  }
  ~AllowedBucket() {
    fake_gcs("DELETE", std::string("/storage/v1/b/") + kAllowedBucket + "/o/" + kAllowedObject);
    fake_gcs("DELETE", std::string("/storage/v1/b/") + kAllowedBucket);
  }
};

const char* kListThenUpload = R"(package snippet

import (
	"context"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

func run(ctx context.Context) (any, error) {
	client, err := storage.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	var objects []string
	it := client.Bucket("kg-allowed-bucket").Objects(ctx, nil)
	for {
		object, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, err
		}
		objects = append(objects, object.Name)
	}
	writer := client.Bucket("kg-bucket").Object("intruder.txt").NewWriter(ctx)
	writer.ChunkSize = 0 // one request
	writer.Write([]byte("not allowed"))
	uploadErr := "none"
	if err := writer.Close(); err != nil {
		uploadErr = err.Error()
	}
	return map[string]any{"objects": objects, "upload_error": uploadErr}, nil
}
)";

}  // namespace

TEST_CASE("hostile egress allowlists: a call limited to one bucket lists it and its upload to another bucket is refused") {
  AllowedBucket bucket;
  LoopbackGoogle google;
  DaemonFixture probe;
  DaemonFixture daemon(adc_daemon_options(google, probe.dir()));  // sealed, the default
  daemon.start();

  auto run = exec_program(daemon, "list_then_upload.go", kListThenUpload,
                          {"--bucket", kAllowedBucket});
  INFO(run.describe());
  REQUIRE(member_text(run.result(), "status") == "ok");
  const auto& value = run.result()["result"]["value"];
  REQUIRE(value["objects"].IsArray());
  REQUIRE(value["objects"].Size() == 1);
  CHECK(std::string(value["objects"][0].GetString()) == kAllowedObject);
  const std::string upload_error = member_text(value, "upload_error");
  CHECK(contains(upload_error, "403"));
  CHECK(contains(upload_error, "kode-gopher API policy: bucket kg-bucket is not in this call's "
                               "api_policy.buckets (kg-allowed-bucket); refused storage.objects.insert"));
  CHECK(has_warning(warnings_of(run.result()), "bucket kg-bucket is not in this call's api_policy.buckets"));

  REQUIRE(run.result().HasMember("api_calls"));
  CHECK(run.result()["api_calls"]["count"].GetUint64() == 2);
  CHECK(run.result()["api_calls"]["refused"].GetUint64() == 1);
  auto lines = api_call_lines(run.result());
  INFO(joined(lines));
  std::sort(lines.begin(), lines.end());
  CHECK(lines == std::vector<std::string>{"storage.objects.insert refused:buckets",
                                          "storage.objects.list"});
  for (const auto& call : run.result()["api_calls"]["calls"].GetArray()) {
    if (call.HasMember("refused")) {
      CHECK(member_text(call, "resource") == "b/kg-bucket/o/intruder.txt");
      CHECK(call["http_status"].GetInt() == 403);
    } else {
      CHECK(member_text(call, "resource") == std::string("b/") + kAllowedBucket);
      CHECK(call["http_status"].GetInt() == 200);
    }
  }
  // Nothing was written: the upload never left the proxy.
  CHECK(fake_gcs("GET", std::string("/storage/v1/b/") + kBucket + "/o/" + kIntruder) == 404);
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
