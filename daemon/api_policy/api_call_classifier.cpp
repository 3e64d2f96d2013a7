#include "api_call_classifier.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "json_reader.hpp"
#include "request_target.hpp"

namespace kg::api_policy {
namespace {

using sandbox::ApiRequestFacts;

constexpr std::size_t kMaxResource = 400;
constexpr std::string_view kGoogleApis = ".googleapis.com";
constexpr std::string_view kStorageHost = "storage.googleapis.com";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& parts, std::size_t from, std::string_view by) {
  std::string out;
  for (std::size_t i = from; i < parts.size(); ++i) {
    if (i > from) out += by;
    out += parts[i];
  }
  return out;
}

std::string bounded(std::string text) {
  if (text.size() > kMaxResource) text = text.substr(0, kMaxResource) + "...";
  return text;
}

bool is_version(std::string_view segment) {
  return segment.size() >= 2 && segment[0] == 'v' && std::isdigit(static_cast<unsigned char>(segment[1]));
}

// GET on a collection lists it, on an item gets it; POST on a collection inserts into it.
std::string verb_for(std::string_view http_method, bool item) {
  if (http_method == "GET" || http_method == "HEAD") return item ? "get" : "list";
  if (http_method == "POST") return item ? "post" : "insert";
  if (http_method == "PATCH") return "patch";
  if (http_method == "PUT") return "update";
  if (http_method == "DELETE") return "delete";
  return lowercase(http_method);
}

bool rest_reads(std::string_view http_method) {
  return http_method == "GET" || http_method == "HEAD";
}

// Notes the first reason `call` cannot be classified for certain.
void note_ambiguity(ApiCall& call, std::string why) {
  if (call.ambiguous_because.empty()) call.ambiguous_because = std::move(why);
}

// A JSON body's member, read with the one JSON reader (docs/security.md): a program's bytes.
// JSON leaves a repeated name open (RFC 8259 §4): RapidJSON's FindMember would take the first
// and a server may take the last, so a repeated name the classifier reads makes `call`
// ambiguous.
const rapidjson::Value* body_member(const rapidjson::Value& object, const char* name, ApiCall& call) {
  if (!object.IsObject()) return nullptr;
  const rapidjson::Value* found = nullptr;
  const std::string_view wanted(name);
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    if (std::string_view(it->name.GetString(), it->name.GetStringLength()) != wanted) continue;
    if (found != nullptr) {
      note_ambiguity(call, "its JSON body names \"" + std::string(wanted) + "\" more than once");
      return found;
    }
    found = &it->value;
  }
  return found;
}

// The first query parameter `name`; a repeated one makes `call` ambiguous.
std::string query_param(const RequestTarget& target, std::string_view name, ApiCall& call) {
  if (target.query_count(name) > 1) {
    note_ambiguity(call, "its query names " + std::string(name) + " more than once");
  }
  return target.query_value(name);
}

bool is_true(const rapidjson::Value* value) { return value != nullptr && value->IsBool() && value->GetBool(); }

rapidjson::Document read_body(const std::string& body) {
  if (body.empty()) return rapidjson::Document();
  auto read = json::read_json(body, json::kSandboxOutputLimits);
  return std::move(read.document);
}

// The service: the first label of a *.googleapis.com host (storage, bigquery, pubsub, ...), the
// path's API for www.googleapis.com, storage for a bucket's own host; else the host itself.
std::string service_of(const std::string& host, const RequestTarget& target) {
  if (host == kStorageHost || ends_with(host, "." + std::string(kStorageHost))) return "storage";
  if (host == "www.googleapis.com") {
    const auto& s = target.segments;
    std::size_t i = (!s.empty() && (s[0] == "upload" || s[0] == "download" || s[0] == "batch")) ? 1 : 0;
    if (i < s.size()) return s[i];
  }
  if (ends_with(host, kGoogleApis)) return host.substr(0, host.find('.'));
  return host;
}

// The Cloud Storage JSON API: rest is what follows /storage/v1.
void classify_storage_json(const ApiRequestFacts& r, const RequestTarget& target,
                           const std::vector<std::string>& rest, ApiCall& call) {
  const std::string& m = r.http_method;
  call.needs_bucket = true;
  call.read = rest_reads(m);
  const auto name = [&](const std::string& what) { call.method = "storage." + what; };
  if (rest.empty()) {
    name(verb_for(m, false));
    return;
  }
  if (rest[0] == "projects") {
    call.needs_bucket = false;
    if (rest.size() >= 2) call.project = rest[1];
    call.resource = join(rest, 0, "/");
    if (rest.size() >= 3 && rest[2] == "serviceAccount") {
      name("projects.serviceAccount.get");
    } else {
      name("projects.hmacKeys." + verb_for(m, rest.size() >= 4));
    }
    return;
  }
  if (rest[0] != "b") {
    name(rest[0] + "." + verb_for(m, rest.size() >= 2));
    call.resource = join(rest, 0, "/");
    return;
  }
  if (rest.size() == 1) {
    call.project = query_param(target, "project", call);
    if (m == "POST") {
      name("buckets.insert");
      const auto body = read_body(r.json_body);
      if (const auto* bucket = body_member(body, "name", call); bucket != nullptr && bucket->IsString()) {
        call.buckets.emplace_back(bucket->GetString(), bucket->GetStringLength());
        call.resource = "b/" + call.buckets.back();
      }
    } else {
      name("buckets." + verb_for(m, false));
      call.needs_bucket = false;
      if (!call.project.empty()) call.resource = "projects/" + call.project;
    }
    return;
  }
  const std::string& bucket = rest[1];
  call.buckets.push_back(bucket);
  call.resource = "b/" + bucket;
  if (rest.size() == 2) {
    name("buckets." + verb_for(m, true));
    return;
  }
  const std::string& part = rest[2];
  if (part == "o") {
    if (rest.size() == 3) {
      // POST starts an upload (media, multipart or resumable); PUT sends a resumable one's data.
      if (m == "POST" || m == "PUT") {
        name("objects.insert");
        std::string object = query_param(target, "name", call);
        if (object.empty()) {
          const auto body = read_body(r.json_body);
          if (const auto* n = body_member(body, "name", call); n != nullptr && n->IsString()) object = n->GetString();
        }
        if (!object.empty()) call.resource += "/o/" + object;
      } else {
        name("objects." + verb_for(m, false));
      }
      return;
    }
    if (rest.size() == 4 && rest[3] == "watch" && m == "POST") {
      name("objects.watchAll");
      return;
    }
    call.resource += "/o/" + rest[3];
    if (rest.size() == 4) {
      name("objects." + verb_for(m, true));
      return;
    }
    const std::string& action = rest[4];
    if ((action == "rewriteTo" || action == "copyTo" || action == "moveTo") && rest.size() >= 9 &&
        rest[5] == "b" && rest[7] == "o") {
      name(action == "rewriteTo" ? "objects.rewrite" : action == "copyTo" ? "objects.copy" : "objects.move");
      call.buckets.push_back(rest[6]);
      call.resource += " -> b/" + rest[6] + "/o/" + rest[8];
      return;
    }
    if (action == "acl") {
      name("objectAccessControls." + verb_for(m, rest.size() >= 6));
      return;
    }
    name("objects." + action);  // compose, restore, ...
    return;
  }
  if (part == "acl") {
    name("bucketAccessControls." + verb_for(m, rest.size() >= 4));
  } else if (part == "defaultObjectAcl") {
    name("defaultObjectAccessControls." + verb_for(m, rest.size() >= 4));
  } else if (part == "notificationConfigs") {
    name("notifications." + verb_for(m, rest.size() >= 4));
  } else if (part == "iam") {
    if (rest.size() >= 4 && rest[3] == "testPermissions") {
      name("buckets.testIamPermissions");
      call.read = true;
    } else {
      name(m == "PUT" ? "buckets.setIamPolicy" : "buckets.getIamPolicy");
    }
  } else {
    name("buckets." + part);  // lockRetentionPolicy, ...
  }
}

// The XML API: storage.googleapis.com/{bucket}/{object} or {bucket}.storage.googleapis.com/{object}.
void classify_storage_xml(const ApiRequestFacts& r, const RequestTarget& target,
                          const std::string& host, ApiCall& call) {
  std::string bucket;
  std::size_t first_object_segment = 0;
  if (host != kStorageHost) {
    bucket = host.substr(0, host.size() - kStorageHost.size() - 1);
  } else if (!target.segments.empty()) {
    bucket = target.segments[0];
    first_object_segment = 1;
  }
  const std::string object = join(target.segments, first_object_segment, "/");
  const std::string& m = r.http_method;
  call.read = rest_reads(m);
  if (bucket.empty()) {
    call.method = "storage.buckets." + verb_for(m, false);
    return;
  }
  call.needs_bucket = true;
  call.buckets.push_back(bucket);
  call.resource = "b/" + bucket;
  if (object.empty()) {
    // GET on a bucket lists its objects (?prefix=, ?delimiter=, ...) unless it names one of
    // the bucket's own subresources (?acl, ?cors, ...): then it reads the bucket's metadata.
    static constexpr std::array<std::string_view, 12> kBucketSubresources = {
        "acl", "billing", "cors", "encryptionConfig", "iam", "lifecycle", "location", "logging",
        "retentionPolicy", "storageClass", "versioning", "websiteConfig"};
    const bool subresource = std::any_of(target.query.begin(), target.query.end(), [](const auto& q) {
      return std::find(kBucketSubresources.begin(), kBucketSubresources.end(), q.first) !=
             kBucketSubresources.end();
    });
    call.method = m == "GET" && !subresource ? "storage.objects.list"
                  : m == "PUT" && !subresource ? "storage.buckets.insert"
                                             : "storage.buckets." + verb_for(m, true);
    return;
  }
  call.resource += "/o/" + object;
  call.method = m == "PUT" || m == "POST" ? "storage.objects.insert" : "storage.objects." + verb_for(m, true);
}

// Splits "name:verb" off the last segment: Google's custom methods (…/topics/t:publish).
std::string take_custom_verb(std::vector<std::string>& rest) {
  if (rest.empty()) return {};
  std::string& last = rest.back();
  const auto colon = last.rfind(':');
  if (colon == std::string::npos) return {};
  std::string verb = last.substr(colon + 1);
  last.erase(colon);
  if (last.empty()) rest.pop_back();
  return verb;
}

// BigQuery's v2 API (discovery names: bigquery.tables.get, bigquery.jobs.query, ...).
void classify_bigquery(const ApiRequestFacts& r, std::vector<std::string> rest, ApiCall& call) {
  const std::string& m = r.http_method;
  const std::string custom = take_custom_verb(rest);
  call.resource = join(rest, 0, "/");
  call.read = rest_reads(m) || (!custom.empty() && is_read_method_name(custom));
  if (rest.size() >= 2 && rest[0] == "projects") call.project = rest[1];
  const auto name = [&](const std::string& what) { call.method = "bigquery." + what; };
  if (rest.size() <= 2) {
    name("projects." + verb_for(m, rest.size() == 2));
    return;
  }
  const std::string& last = rest.back();
  const std::string& collection = rest[rest.size() % 2 == 0 ? rest.size() - 2 : rest.size() - 1];
  const bool item = rest.size() % 2 == 0;
  if (last == "data" || last == "insertAll") {
    name(m == "POST" || last == "insertAll" ? "tabledata.insertAll" : "tabledata.list");
    call.read = rest_reads(m);
    return;
  }
  if (rest[2] == "queries") {
    name(rest.size() == 3 ? "jobs.query" : "jobs.getQueryResults");
    if (rest.size() == 3) call.read = is_true(body_member(read_body(r.json_body), "dryRun", call));
    return;
  }
  if (rest[2] == "jobs" && rest.size() == 5) {
    name("jobs." + rest[4]);  // cancel, delete
    return;
  }
  if (rest[2] == "serviceAccount") {
    name("projects.getServiceAccount");
    return;
  }
  name(collection + "." + (custom.empty() ? verb_for(m, item) : custom));
  if (call.method == "bigquery.jobs.insert") {
    const auto body = read_body(r.json_body);
    const rapidjson::Value* configuration = body_member(body, "configuration", call);
    call.read = configuration != nullptr && is_true(body_member(*configuration, "dryRun", call));
  }
}

// The common REST shape: /[api/]v1/collection/id/.../name[:verb].
void classify_rest(const ApiRequestFacts& r, const RequestTarget& target, ApiCall& call) {
  const auto& s = target.segments;
  const auto version = std::find_if(s.begin(), s.end(), [](const std::string& x) { return is_version(x); });
  std::vector<std::string> rest(version == s.end() ? s.begin() : version + 1, s.end());
  const std::string custom = take_custom_verb(rest);
  call.resource = join(rest, 0, "/");
  if (rest.size() >= 2 && rest[0] == "projects") call.project = rest[1];
  if (call.project.empty()) call.project = query_param(target, "project", call);
  std::string collections;
  for (std::size_t i = 0; i < rest.size(); i += 2) collections += "." + rest[i];
  const bool item = !rest.empty() && rest.size() % 2 == 0;
  call.method = call.service + collections + "." + (custom.empty() ? verb_for(r.http_method, item) : custom);
  call.read = rest_reads(r.http_method) || (!custom.empty() && is_read_method_name(custom));
}

// The project named by a resource name "projects/{p}/...", or "" ("_" names none).
std::string project_in(std::string_view value) {
  const auto at = value.find("projects/");
  if (at != 0) return {};
  auto rest = value.substr(9);
  rest = rest.substr(0, rest.find('/'));
  return rest == "_" ? std::string() : std::string(rest);
}

// gRPC: /package.Service/Method; the resource, project and bucket from x-goog-request-params.
void classify_grpc(const ApiRequestFacts& r, const RequestTarget& target, ApiCall& call) {
  const auto& s = target.segments;
  const std::string rpc = s.size() >= 2 ? s[s.size() - 2] + "/" + s.back() : join(s, 0, "/");
  const std::string method_name = s.empty() ? std::string() : s.back();
  call.method = rpc;
  static constexpr std::array<std::string_view, 2> kReadSessions = {
      "google.cloud.bigquery.storage.v1.BigQueryRead/CreateReadSession",
      "google.cloud.bigquery.storage.v1.BigQueryRead/SplitReadStream"};
  call.read = is_read_method_name(method_name) ||
              std::find(kReadSessions.begin(), kReadSessions.end(), rpc) != kReadSessions.end();
  const auto params = parse_request_params(r.request_params);
  std::set<std::string_view> keys;
  for (const auto& pair : params) {
    if (!keys.insert(pair.first).second) {
      note_ambiguity(call, "its x-goog-request-params names " + bounded(pair.first) + " more than once");
    }
  }
  for (const auto& [key, value] : params) {
    if (call.resource.empty() || (value.starts_with("projects/") && !call.resource.starts_with("projects/"))) {
      call.resource = value;
    }
    if (call.project.empty()) call.project = key == "project" && !value.starts_with("projects/") ? value : project_in(value);
    if (const auto at = value.find("/buckets/"); at != std::string::npos && value.starts_with("projects/")) {
      const std::string bucket = value.substr(at + 9, value.find('/', at + 9) - (at + 9));
      if (!bucket.empty() && std::find(call.buckets.begin(), call.buckets.end(), bucket) == call.buckets.end()) {
        call.buckets.push_back(bucket);
      }
    }
  }
  if (call.service == "storage") {
    call.needs_bucket = method_name != "ListBuckets" && method_name != "GetServiceAccount" &&
                        method_name.find("HmacKey") == std::string::npos;
  }
}

// Camel-case words: "GetIamPolicy" -> Get, Iam, Policy.
std::vector<std::string_view> words_of(std::string_view name) {
  std::vector<std::string_view> words;
  std::size_t start = 0;
  for (std::size_t i = 1; i <= name.size(); ++i) {
    if (i == name.size() || std::isupper(static_cast<unsigned char>(name[i]))) {
      words.push_back(name.substr(start, i - start));
      start = i;
    }
  }
  return words;
}

}  // namespace

bool is_read_method_name(std::string_view name) {
  if (name.empty()) return false;
  std::string upper(name);
  upper[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[0])));
  static constexpr std::array<std::string_view, 12> kReadStarts = {
      "Get", "List", "Listen", "Read", "Search", "Lookup", "BatchGet", "Query", "RunQuery",
      "RunAggregationQuery", "TestIamPermissions", "BidiRead"};
  static constexpr std::array<std::string_view, 14> kWriteWords = {
      "Write", "Create", "Delete", "Update", "Set", "Modify", "Insert", "Patch", "Commit",
      "Remove", "Move", "Copy", "Ack", "Acknowledge"};
  const auto words = words_of(upper);
  const bool starts_with_read = std::any_of(kReadStarts.begin(), kReadStarts.end(), [&](std::string_view start) {
    if (!upper.starts_with(start)) return false;
    // A whole word: "GetTopic" starts with Get, "Getaway" does not.
    return upper.size() == start.size() || std::isupper(static_cast<unsigned char>(upper[start.size()]));
  });
  if (!starts_with_read) return false;
  return std::none_of(words.begin(), words.end(), [&](std::string_view word) {
    return std::find(kWriteWords.begin(), kWriteWords.end(), word) != kWriteWords.end();
  });
}

ApiCall classify_api_call(const ApiRequestFacts& request) {
  const std::string host = lowercase(request.host);
  const RequestTarget target = parse_request_target(request.path);
  ApiCall call;
  call.service = service_of(host, target);
  call.ambiguous_because = target.ambiguous_because;
  call.billing_project = query_param(target, "userProject", call);
  if (request.grpc) {
    classify_grpc(request, target, call);
  } else {
    const auto& s = target.segments;
    const std::size_t skip = (!s.empty() && (s[0] == "upload" || s[0] == "download" || s[0] == "batch")) ? 1 : 0;
    const bool storage_json = s.size() >= skip + 2 && s[skip] == "storage" && s[skip + 1] == "v1";
    const bool bigquery = s.size() >= skip + 2 && s[skip] == "bigquery" && s[skip + 1] == "v2";
    if (storage_json && skip == 1 && s[0] == "batch") {
      call.method = "storage.batch";
      call.needs_bucket = true;
    } else if (storage_json) {
      classify_storage_json(request, target, {s.begin() + static_cast<long>(skip) + 2, s.end()}, call);
    } else if (call.service == "storage") {
      classify_storage_xml(request, target, host, call);
    } else if (bigquery) {
      classify_bigquery(request, {s.begin() + static_cast<long>(skip) + 2, s.end()}, call);
    } else {
      classify_rest(request, target, call);
    }
  }
  call.resource = bounded(std::move(call.resource));
  if (call.method.empty()) call.method = call.service + "." + lowercase(request.http_method);
  if (!call.ambiguous_because.empty()) call.read = false;  // nothing says it only reads
  return call;
}

}  // namespace kg::api_policy
