// Which Google API call an HTTP request the egress proxy read is (docs/api-policy.md, "Which API
// call a request is"): the service, the method or RPC, the resource, the project and buckets it
// names, and whether it only reads. The API policy (api_policy.hpp) decides on it and the audit
// records it. Known shapes: the Cloud Storage JSON API (/storage/v1, /upload/storage/v1,
// /download/storage/v1, /batch/storage/v1), its XML API (storage.googleapis.com/{bucket}/...
// and {bucket}.storage.googleapis.com), BigQuery (/bigquery/v2/projects/{p}/...), the common
// /v1/projects/{p}/... shape of the other REST APIs, and gRPC (/package.Service/Method with
// x-goog-request-params). Anything else is named by what can be seen of it and, since nothing
// says it only reads, counts as a write. Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "egress_call.hpp"

namespace kg::api_policy {

struct ApiCall {
  std::string service;   // storage, bigquery, pubsub, ... (else the host name)
  // storage.objects.list, bigquery.jobs.query, pubsub.projects.topics.publish, or for gRPC the
  // RPC as sent: google.pubsub.v1.Publisher/Publish
  std::string method;
  std::string resource;  // b/{bucket}/o/{object}, projects/{p}/topics/{t}, ...; empty: not told
  std::string project;   // the project the request names (path or request params); empty: none
  std::string billing_project;  // userProject: the project billed for it, when given
  std::vector<std::string> buckets;  // every bucket it names (a rewrite names two)
  // A storage request that acts on or in a bucket (every one but listing buckets and the
  // project-level calls): with `buckets` empty, its bucket cannot be told.
  bool needs_bucket = false;
  bool read = false;  // changes nothing (the table in docs/api-policy.md)
  // Why the request cannot be classified for certain, or empty: it could be read two ways (a
  // "." or ".." path segment, raw or percent-encoded; a target that is not a path; a query
  // parameter, x-goog-request-params key or JSON body member the classifier reads given more
  // than once). The rest is what one reading gives, `read` is false, and a policy that needs
  // the classification refuses it (api_policy.hpp).
  std::string ambiguous_because;
};

ApiCall classify_api_call(const sandbox::ApiRequestFacts& request);

// Whether a gRPC method name (the part after the '/') or a REST custom verb only reads: it
// starts with the whole word Get, List, Listen, Read, Search, Lookup, BatchGet, Query, RunQuery,
// RunAggregationQuery, TestIamPermissions or BidiRead (case-insensitive first letter), and has
// no write word (Write, Create, Delete, Update, Set, Modify, Insert, Patch, Commit, Remove, Move,
// Copy, Ack, Acknowledge).
bool is_read_method_name(std::string_view name);

}  // namespace kg::api_policy
