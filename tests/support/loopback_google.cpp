#include "loopback_google.hpp"
#include "test_json.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <Poco/Crypto/RSAKey.h>
#include <Poco/Exception.h>
#include <Poco/JWT/Signer.h>
#include <Poco/JWT/Token.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Random.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>
#include <rapidjson/document.h>

#include <chrono>
#include <ctime>
#include <sstream>

namespace kg::test {
namespace {

std::map<std::string, std::string> parse_form(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  std::string pair;
  while (std::getline(in, pair, '&')) {
    const auto equals = pair.find('=');
    std::string name = pair.substr(0, equals), value;
    if (equals != std::string::npos) {
      std::string raw = pair.substr(equals + 1);
      for (char& c : raw) {
        if (c == '+') c = ' ';
      }
      Poco::URI::decode(raw, value);
    }
    fields[name] = value;
  }
  return fields;
}

LoopbackGoogle::Answer json_error(int status, const std::string& error, const std::string& description) {
  return {status, "application/json",
          R"({"error":")" + error + R"(","error_description":")" + description + R"("})", {}};
}

class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(LoopbackGoogle& google) : google_(google) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    std::map<std::string, std::string> headers;
    for (const auto& [name, value] : request) headers[Poco::toLower(name)] = value;
    const auto answer = google_.answer(request.getMethod(), request.getURI(), headers, body);
    response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status));
    response.setContentType(answer.content_type);
    for (const auto& [name, value] : answer.headers) response.set(name, value);
    response.setContentLength(static_cast<std::streamsize>(answer.body.size()));
    response.send() << answer.body;
  }

 private:
  LoopbackGoogle& google_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(LoopbackGoogle& google) : google_(google) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
    return new Handler(google_);
  }

 private:
  LoopbackGoogle& google_;
};

}  // namespace

struct LoopbackGoogle::Server {
  Poco::Net::ServerSocket socket{Poco::Net::SocketAddress("127.0.0.1", 0)};
  std::unique_ptr<Poco::Net::HTTPServer> http;
};

LoopbackGoogle::LoopbackGoogle() : server_(std::make_unique<Server>()) {
  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(8);
  server_->http = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), server_->socket, params);
  server_->http->start();
}

LoopbackGoogle::~LoopbackGoogle() { server_->http->stopAll(true); }

std::string LoopbackGoogle::base_url() const { return "http://" + metadata_host(); }

std::string LoopbackGoogle::metadata_host() const {
  return "127.0.0.1:" + std::to_string(server_->socket.address().port());
}

int LoopbackGoogle::requests(const std::string& method_and_path) const {
  std::lock_guard lock(mutex_);
  auto it = requests_.find(method_and_path);
  return it == requests_.end() ? 0 : it->second;
}

std::string LoopbackGoogle::last_iam_body() const {
  std::lock_guard lock(mutex_);
  return last_iam_body_;
}

std::vector<IssuedToken> LoopbackGoogle::issued() const {
  std::lock_guard lock(mutex_);
  return issued_;
}

std::string LoopbackGoogle::subject_of(const std::string& token) const {
  std::lock_guard lock(mutex_);
  for (const auto& t : issued_) {
    if (t.value == token) return t.subject;
  }
  return {};
}

std::string LoopbackGoogle::issue(const std::string& subject, const std::string& scope) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  Poco::Random random;
  random.seed();
  std::string value = "ya29.test-";
  for (int i = 0; i < 40; ++i) value += kAlphabet[random.next(sizeof kAlphabet - 1)];
  std::lock_guard lock(mutex_);
  issued_.push_back({value, subject, scope});
  return value;
}

LoopbackGoogle::Answer LoopbackGoogle::answer(const std::string& method, const std::string& uri,
                                              const std::map<std::string, std::string>& headers,
                                              const std::string& body) {
  const Poco::URI parsed(uri);
  const std::string path = parsed.getPath();
  {
    std::lock_guard lock(mutex_);
    ++requests_[method + " " + path];
  }
  if (path.starts_with("/computeMetadata/")) return metadata(path, headers);
  if (fail_with_status != 0) {
    return {fail_with_status, "text/html", "<html>the endpoint is down</html>", {}};
  }
  if (method == "POST" && path == "/token") return token_grant(body);
  if (method == "POST" && path.ends_with(":generateAccessToken")) {
    auto auth = headers.find("authorization");
    return generate_access_token(path, auth == headers.end() ? "" : auth->second, body);
  }
  if (method == "GET" && (path == "/tokeninfo" || path == "/userinfo")) {
    std::string token;
    if (path == "/tokeninfo") {
      for (const auto& [name, value] : parsed.getQueryParameters()) {
        if (name == "access_token") token = value;
      }
    } else if (auto auth = headers.find("authorization"); auth != headers.end()) {
      token = auth->second.substr(std::string("Bearer ").size());
    }
    const std::string subject = subject_of(token);
    if (subject.empty()) return json_error(400, "invalid_token", "Invalid Value");
    return {200, "application/json", R"({"email":")" + subject + R"(","email_verified":"true"})", {}};
  }
  return json_error(404, "not_found", "no such endpoint: " + method + " " + path);
}

LoopbackGoogle::Answer LoopbackGoogle::token_grant(const std::string& body) {
  auto form = parse_form(body);
  if (form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer") {
    return jwt_grant(form["assertion"]);
  }
  if (form["grant_type"] != "refresh_token") {
    return json_error(400, "unsupported_grant_type", "Invalid grant_type: " + form["grant_type"]);
  }
  if (form["client_id"] != client_id || form["client_secret"] != client_secret) {
    return json_error(401, "invalid_client", "The OAuth client was not found.");
  }
  if (form["refresh_token"] != refresh_token) {
    return json_error(400, "invalid_grant", "Token has been expired or revoked.");
  }
  const std::string scope =
      "openid https://www.googleapis.com/auth/userinfo.email " + expected_scope;
  const std::string token = issue(user_email, scope);
  return {200, "application/json",
          R"({"access_token":")" + token + R"(","expires_in":)" + std::to_string(expires_in) +
              R"(,"scope":")" + scope + R"(","token_type":"Bearer","id_token":"x.y.z"})",
          {}};
}

LoopbackGoogle::Answer LoopbackGoogle::jwt_grant(const std::string& assertion) {
  Poco::JWT::Token jwt;
  try {
    std::istringstream pem(service_account_public_key_pem);
    Poco::SharedPtr<Poco::Crypto::RSAKey> key = new Poco::Crypto::RSAKey(&pem);
    Poco::JWT::Signer signer(key);
    signer.setAlgorithms({Poco::JWT::Signer::ALGO_RS256});
    jwt = signer.verify(assertion);
  } catch (const Poco::Exception& e) {
    return json_error(400, "invalid_grant", "Invalid JWT Signature.");
  }
  if (jwt.getAlgorithm() != "RS256") return json_error(400, "invalid_grant", "alg must be RS256");
  if (jwt.getIssuer() != service_account_email) {
    return json_error(400, "invalid_grant", "Invalid issuer: " + jwt.getIssuer());
  }
  const auto audience = jwt.getAudience();
  if (audience.size() != 1 || audience[0] != token_url()) {
    return json_error(400, "invalid_grant", "Invalid JWT audience: must be " + token_url());
  }
  const std::string scope = jwt.payload().optValue<std::string>("scope", "");
  if (scope != expected_scope) return json_error(400, "invalid_scope", "Unexpected scope: " + scope);
  const auto now = Poco::Timestamp();
  if (jwt.getExpiration() <= now || jwt.getIssuedAt() > now + Poco::Timespan(60, 0)) {
    return json_error(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token");
  }
  const std::string token = issue(service_account_email, scope);
  return {200, "application/json",
          R"({"access_token":")" + token + R"(","expires_in":)" + std::to_string(expires_in) +
              R"(,"token_type":"Bearer"})",
          {}};
}

LoopbackGoogle::Answer LoopbackGoogle::generate_access_token(const std::string& path,
                                                             const std::string& authorization,
                                                             const std::string& body) {
  {
    std::lock_guard lock(mutex_);
    last_iam_body_ = body;
  }
  const std::string bearer = "Bearer ";
  const std::string source =
      authorization.starts_with(bearer) ? subject_of(authorization.substr(bearer.size())) : "";
  if (source.empty()) {
    return {401, "application/json",
            R"({"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}})",
            {}};
  }
  const auto slash = path.rfind('/');
  const std::string target = path.substr(slash + 1, path.rfind(':') - slash - 1);
  if (std::find(impersonable.begin(), impersonable.end(), target) == impersonable.end()) {
    return {403, "application/json",
            R"({"error":{"code":403,"message":"Permission 'iam.serviceAccounts.getAccessToken' denied","status":"PERMISSION_DENIED"}})",
            {}};
  }
  kg::json::ReadJson doc_read = kg::test::read_test_json(body);
  rapidjson::Document& doc = doc_read.document;
  std::string scope;
  if (doc.IsObject() && doc.HasMember("scope") && doc["scope"].IsArray()) {
    for (const auto& s : doc["scope"].GetArray()) scope += (scope.empty() ? "" : " ") + std::string(s.GetString());
  }
  if (scope.empty()) return json_error(400, "invalid_argument", "scope is required");
  const std::string token = issue(target, scope);
  const std::time_t expiry = std::time(nullptr) + expires_in;
  std::tm utc{};
  gmtime_r(&expiry, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S.123456Z", &utc);
  return {200, "application/json",
          R"({"accessToken":")" + token + R"(","expireTime":")" + text + R"("})", {}};
}

LoopbackGoogle::Answer LoopbackGoogle::metadata(const std::string& path,
                                                const std::map<std::string, std::string>& headers) {
  const std::map<std::string, std::string> flavor = {{"Metadata-Flavor", "Google"}};
  auto it = headers.find("metadata-flavor");
  if (it == headers.end() || it->second != "Google") {
    return {403, "text/plain", "Missing Metadata-Flavor: Google header", flavor};
  }
  const std::string accounts = "/computeMetadata/v1/instance/service-accounts/default/";
  if (path == accounts + "token") {
    if (fail_with_status != 0) return {fail_with_status, "text/plain", "unavailable", flavor};
    const std::string token = issue(metadata_email, expected_scope);
    return {200, "application/json",
            R"({"access_token":")" + token + R"(","expires_in":)" + std::to_string(expires_in) +
                R"(,"token_type":"Bearer"})",
            flavor};
  }
  if (path == accounts + "email") return {200, "application/text", metadata_email, flavor};
  if (path == "/computeMetadata/v1/project/project-id") {
    return {200, "application/text", metadata_project, flavor};
  }
  return {404, "text/plain", "not found", flavor};
}

TestRsaKey make_test_rsa_key() {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  if (key == nullptr) throw std::runtime_error("EVP_RSA_gen failed");
  auto to_pem = [&](bool private_half) {
    BIO* bio = BIO_new(BIO_s_mem());
    const int ok = private_half
                       ? PEM_write_bio_PKCS8PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr)
                       : PEM_write_bio_PUBKEY(bio, key);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    if (ok != 1) throw std::runtime_error("writing the test key as PEM failed");
    return pem;
  };
  TestRsaKey out{to_pem(true), to_pem(false)};
  EVP_PKEY_free(key);
  return out;
}

}  // namespace kg::test
