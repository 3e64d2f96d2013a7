// The metadata documents (RFC 9728, RFC 8414), which paths are served, dynamic client
// registration (RFC 7591), and /oauth/authorize's answers to bad requests: a page when there is
// no safe redirect, else a redirect to the client with error, state and iss.
#include "oauth_test_fixture.hpp"

using namespace kg::team;
using namespace kg::team::test;

namespace {

std::vector<std::string> strings(const rapidjson::Value& array) {
  std::vector<std::string> out;
  for (const auto& value : array.GetArray()) out.emplace_back(value.GetString());
  return out;
}

HttpReply get(OAuthFixture& fixture, const std::string& path, const std::string& query = "") {
  return fixture.server().handle({"GET", path, query, {}, ""});
}

}  // namespace

TEST_CASE("the protected resource metadata names the resource and this server") {
  OAuthFixture fixture;
  for (const char* path : {"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}) {
    CAPTURE(path);
    CHECK(fixture.server().serves(path));
    const HttpReply reply = get(fixture, path);
    CHECK(reply.status == 200);
    CHECK(reply.content_type == "application/json");
    const auto json = parse_json(reply.body);
    CHECK(std::string(json["resource"].GetString()) == "https://mcp.example.com/mcp");
    CHECK(strings(json["authorization_servers"]) == std::vector<std::string>{"https://mcp.example.com"});
    CHECK(strings(json["scopes_supported"]) == std::vector<std::string>{"mcp"});
    CHECK(strings(json["bearer_methods_supported"]) == std::vector<std::string>{"header"});
  }
}

TEST_CASE("the authorization server metadata is served at both well-known paths") {
  OAuthFixture fixture;
  for (const char* path : {"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}) {
    CAPTURE(path);
    const auto json = parse_json(get(fixture, path).body);
    CHECK(std::string(json["issuer"].GetString()) == "https://mcp.example.com");
    CHECK(std::string(json["authorization_endpoint"].GetString()) == "https://mcp.example.com/oauth/authorize");
    CHECK(std::string(json["token_endpoint"].GetString()) == "https://mcp.example.com/oauth/token");
    CHECK(std::string(json["registration_endpoint"].GetString()) == "https://mcp.example.com/oauth/register");
    CHECK(strings(json["code_challenge_methods_supported"]) == std::vector<std::string>{"S256"});
    CHECK(strings(json["response_types_supported"]) == std::vector<std::string>{"code"});
    CHECK(strings(json["grant_types_supported"]) == std::vector<std::string>{"authorization_code", "refresh_token"});
    CHECK(strings(json["token_endpoint_auth_methods_supported"]) == std::vector<std::string>{"none"});
    CHECK(strings(json["scopes_supported"]) == std::vector<std::string>{"mcp"});
    CHECK(json["authorization_response_iss_parameter_supported"].GetBool());
    CHECK(json["client_id_metadata_document_supported"].GetBool());
  }
  CHECK(get(fixture, "/.well-known/oauth-authorization-server").status == 200);
  CHECK(fixture.server().handle({"POST", "/.well-known/oauth-authorization-server", "", {}, ""}).status == 405);
}

TEST_CASE("serves() claims the OAuth paths and nothing else") {
  OAuthFixture fixture;
  for (const char* path : {"/oauth/authorize", "/oauth/callback", "/oauth/token", "/oauth/register"}) {
    CHECK(fixture.server().serves(path));
  }
  for (const char* path : {"/mcp", "/", "/oauth", "/oauth/authorize/x", "/.well-known/other"}) {
    CHECK_FALSE(fixture.server().serves(path));
  }
}

TEST_CASE("dynamic registration takes public clients with https or loopback redirect URIs") {
  OAuthFixture fixture;
  const HttpReply reply = fixture.server().handle(
      {"POST", "/oauth/register", "", {{"content-type", "application/json"}},
       R"({"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback","http://localhost:6274/cb"],)"
       R"("token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]})"});
  REQUIRE(reply.status == 201);
  const auto json = parse_json(reply.body);
  const std::string client_id = json["client_id"].GetString();
  CHECK(client_id.rfind("kgc-", 0) == 0);
  CHECK(std::string(json["token_endpoint_auth_method"].GetString()) == "none");
  CHECK(strings(json["redirect_uris"]).size() == 2);
  const auto stored = fixture.store().find_oauth_client(client_id);
  REQUIRE(stored.has_value());
  CHECK(stored->client_name == "Claude");
  CHECK(stored->redirect_uris == std::vector<std::string>{"https://claude.ai/api/mcp/auth_callback", "http://localhost:6274/cb"});

  auto refused = [&](const std::string& body, const char* error, const char* words) {
    const HttpReply answer = fixture.server().handle({"POST", "/oauth/register", "", {}, body});
    INFO(answer.body);
    CHECK(answer.status == 400);
    const auto error_json = parse_json(answer.body);
    CHECK(std::string(error_json["error"].GetString()) == error);
    CHECK(std::string(error_json["error_description"].GetString()).find(words) != std::string::npos);
  };
  refused(R"({"redirect_uris":["http://evil.example/cb"]})", "invalid_redirect_uri", "loopback");
  refused(R"({"redirect_uris":["https://app.example/cb#frag"]})", "invalid_redirect_uri", "fragment");
  refused(R"({"redirect_uris":[]})", "invalid_redirect_uri", "at least one");
  refused(R"({"client_name":"x"})", "invalid_redirect_uri", "at least one");
  refused(R"({"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"})",
          "invalid_client_metadata", "public clients");
  refused(R"({"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]})",
          "invalid_client_metadata", "grant_types");
  refused("not json", "invalid_client_metadata", "JSON");
}

TEST_CASE("registrations waiting for their first sign-in are capped; the next gets 429") {
  OAuthSettings settings = OAuthFixture::default_settings();
  settings.max_unused_registrations = 2;
  OAuthFixture fixture(settings);
  const std::string first = fixture.register_client();
  fixture.register_client();
  const HttpReply refused = fixture.server().handle(
      {"POST", "/oauth/register", "", {}, R"({"redirect_uris":["http://127.0.0.1:1/cb"]})"});
  CHECK(refused.status == 429);
  CHECK(header_of(refused, "Retry-After") == "600");  // unstarted registrations are gone by then
  const auto json = parse_json(refused.body);
  CHECK(std::string(json["error"].GetString()) == "temporarily_unavailable");
  CHECK(std::string(json["error_description"].GetString()).find("try again") != std::string::npos);
  CHECK(fixture.logger().text().find("refused a registration") != std::string::npos);
  // A day later the unused ones are gone, and registering works again.
  fixture.advance(86400 + 1);
  fixture.register_client();
  CHECK_FALSE(fixture.store().find_oauth_client(first).has_value());
}

TEST_CASE("authorize shows a page, never a redirect, for an unknown client or redirect URI") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const HttpReply unknown = get(fixture, "/oauth/authorize", "response_type=code&client_id=kgc-nobody&redirect_uri=" + std::string(kRedirect));
  CHECK(unknown.status == 400);
  CHECK(unknown.content_type.rfind("text/html", 0) == 0);
  CHECK(header_of(unknown, "Location").empty());
  CHECK(unknown.body.find("add it again") != std::string::npos);
  const HttpReply wrong_uri = get(fixture, "/oauth/authorize",
                                  "response_type=code&client_id=" + client + "&redirect_uri=https%3A%2F%2Fevil.example%2Fcb");
  CHECK(wrong_uri.status == 400);
  CHECK(header_of(wrong_uri, "Location").empty());
  CHECK(wrong_uri.body.find("evil.example") != std::string::npos);
  // Markup in a parameter is escaped.
  const HttpReply markup = get(fixture, "/oauth/authorize", "client_id=%3Cscript%3E");
  CHECK(markup.body.find("<script>") == std::string::npos);
  CHECK(markup.body.find("&lt;script&gt;") != std::string::npos);
}

TEST_CASE("authorize sends errors back to the client with state and iss") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const std::string challenge = kg::team::oauth::s256_challenge(kg::team::oauth::random_secret(32));
  const std::string base =
      "client_id=" + client + "&redirect_uri=" + kg::net::percent_encode(kRedirect) + "&state=xyz";
  auto error_of = [&](const std::string& query, const char* error) {
    const HttpReply reply = get(fixture, "/oauth/authorize", base + query);
    INFO(query);
    REQUIRE(reply.status == 302);
    const std::string location = header_of(reply, "Location");
    CHECK(location.rfind(std::string(kRedirect) + "?", 0) == 0);
    const auto fields = location_query(reply);
    CHECK(fields.get("error") == error);
    CHECK(fields.get("state") == "xyz");
    CHECK(fields.get("iss") == kPublicUrl);
    CHECK_FALSE(fields.get("error_description").empty());
  };
  error_of("&response_type=token&code_challenge_method=S256&code_challenge=" + challenge, "unsupported_response_type");
  error_of("&response_type=code", "invalid_request");
  error_of("&response_type=code&code_challenge_method=plain&code_challenge=" + challenge, "invalid_request");
  error_of("&response_type=code&code_challenge_method=S256&code_challenge=short", "invalid_request");
  error_of("&response_type=code&code_challenge_method=S256&code_challenge=" + challenge +
               "&resource=https%3A%2F%2Fother.example%2Fmcp", "invalid_target");
  error_of("&response_type=code&code_challenge_method=S256&code_challenge=" + challenge + "&scope=admin", "invalid_scope");
  error_of("&response_type=code&response_type=code&code_challenge_method=S256&code_challenge=" + challenge, "invalid_request");
  // All is well but the provider cannot be reached (nothing listens at the issuer).
  error_of("&response_type=code&code_challenge_method=S256&code_challenge=" + challenge +
               "&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&scope=mcp", "temporarily_unavailable");
}

TEST_CASE("a callback for no known sign-in is a page saying to start again") {
  OAuthFixture fixture;
  const HttpReply reply = get(fixture, "/oauth/callback", "code=abc&state=never-issued");
  CHECK(reply.status == 400);
  CHECK(reply.body.find("Start it again") != std::string::npos);
  CHECK(header_of(reply, "Location").empty());
}

TEST_CASE("a Client ID Metadata Document must be https") {
  OAuthFixture fixture;
  const HttpReply reply =
      get(fixture, "/oauth/authorize",
          "response_type=code&client_id=http%3A%2F%2F127.0.0.1%3A9%2Fclient.json&redirect_uri=" +
              kg::net::percent_encode(kRedirect));
  CHECK(reply.status == 400);
  CHECK(header_of(reply, "Location").empty());
}

TEST_CASE("a Client ID Metadata Document is never fetched from this host, its network or a metadata server") {
  using kg::team::oauth::metadata_document_host_problem;
  for (const char* host : {"127.0.0.1", "10.1.2.3", "169.254.169.254", "[::1]", "2130706433",
                           "localhost", "no-such-name.invalid"}) {
    CAPTURE(host);
    CHECK(metadata_document_host_problem(host).has_value());
  }
  // Checked and fetched as one validated name (net::Host): a resolver would stop at the NUL.
  CHECK(metadata_document_host_problem(std::string("localhost\0.example.com", 22)).value() ==
        "its host \"localhost\\x00.example.com\" is not a host name: it "
        "contains a NUL byte");
}

// Which hosts are loopback is lib/net's (tests/unit/net/test_address_policy.cpp).
TEST_CASE(
    "an http redirect URI must be on a loopback address or localhost, not a name that starts like "
    "one") {
  using kg::team::oauth::redirect_uri_problem;
  CHECK(redirect_uri_problem("http://[::1]:8080/cb").empty());
  CHECK_FALSE(redirect_uri_problem("http://127.0.0.1.evil.example/cb").empty());
  CHECK(redirect_uri_problem("https://app.example/cb?x=1").empty());
  CHECK_FALSE(redirect_uri_problem("javascript:alert(1)").empty());
  CHECK_FALSE(redirect_uri_problem("/relative").empty());
}
