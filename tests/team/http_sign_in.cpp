#include "http_sign_in.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <Poco/Base64Encoder.h>
#include <Poco/SHA2Engine.h>
#include <Poco/URI.h>

#include <sstream>

#include "../support/test_json.hpp"

namespace kg::test {
namespace {

std::string s256(const std::string& verifier) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(verifier);
  const auto& digest = sha.digest();
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, Poco::BASE64_URL_ENCODING | Poco::BASE64_NO_PADDING);
  encoder.write(reinterpret_cast<const char*>(digest.data()), static_cast<std::streamsize>(digest.size()));
  encoder.close();
  return out.str();
}

std::string query_value(const std::string& url, const std::string& name) {
  for (const auto& [key, value] : Poco::URI(url).getQueryParameters()) {
    if (key == name) return value;
  }
  return "";
}

std::string hidden_field(const std::string& html, const std::string& name) {
  const std::string marker = "name=\"" + name + "\" value=\"";
  const auto start = html.find(marker);
  REQUIRE(start != std::string::npos);
  const auto value = start + marker.size();
  return html.substr(value, html.find('"', value) - value);
}

std::string form(std::initializer_list<std::pair<std::string, std::string>> fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    std::string encoded;
    Poco::URI::encode(value, "!#$&'()*+,/:;=?@[]", encoded);
    out += (out.empty() ? "" : "&") + name + "=" + encoded;
  }
  return out;
}

}  // namespace

std::string register_http_client(const HttpProbe& daemon, const std::string& name) {
  const ProbeAnswer answer = daemon.request(
      "POST", "/oauth/register",
      R"({"client_name":")" + name + R"(","redirect_uris":[")" + kSignInRedirect + R"("]})",
      {{"Content-Type", "application/json"}});
  INFO(answer.body);
  REQUIRE(answer.status == 201);
  const rapidjson::Document json = kg::test::test_json(answer.body);
  return json["client_id"].GetString();
}

std::string authorize_query(const std::string& daemon_url, const std::string& client_id,
                            const std::string& verifier, const std::string& login_hint) {
  return form({{"response_type", "code"}, {"client_id", client_id},
               {"redirect_uri", kSignInRedirect}, {"code_challenge", s256(verifier)},
               {"code_challenge_method", "S256"}, {"state", "limits-state"},
               {"resource", daemon_url + "/mcp"}, {"scope", "mcp"}, {"login_hint", login_hint}});
}

std::string sign_in_over_http(const HttpProbe& daemon, const std::string& daemon_url,
                              const std::string& login_hint) {
  const std::string client_id = register_http_client(daemon, "limits test");
  const std::string verifier = "limits-test-verifier-0123456789-abcdefghijklmnop";
  const ProbeAnswer authorize = daemon.request(
      "GET", "/oauth/authorize?" + authorize_query(daemon_url, client_id, verifier, login_hint), "",
      {});
  INFO(authorize.body);
  REQUIRE(authorize.status == 302);
  const std::string cookie = authorize.header("set-cookie").substr(0, authorize.header("set-cookie").find(';'));
  const Poco::URI upstream(authorize.header("location"));
  const ProbeAnswer provider = HttpProbe(upstream.getHost(), upstream.getPort())
                                   .request("GET", upstream.getPathAndQuery(), "", {});
  REQUIRE(provider.status == 302);
  const Poco::URI back(provider.header("location"));
  const ProbeAnswer page = daemon.request("GET", back.getPathAndQuery(), "", {{"Cookie", cookie}});
  INFO(page.body);
  REQUIRE(page.status == 200);
  const ProbeAnswer consent = daemon.request(
      "POST", "/oauth/consent",
      form({{"consent_id", hidden_field(page.body, "consent_id")},
            {"csrf", hidden_field(page.body, "csrf")}, {"decision", "allow"}}),
      {{"Content-Type", "application/x-www-form-urlencoded"}, {"Cookie", cookie}});
  INFO(consent.body);
  REQUIRE(consent.status == 302);
  const std::string code = query_value(consent.header("location"), "code");
  REQUIRE_FALSE(code.empty());
  const ProbeAnswer token = daemon.request(
      "POST", "/oauth/token",
      form({{"grant_type", "authorization_code"}, {"code", code}, {"redirect_uri", kSignInRedirect},
            {"client_id", client_id}, {"code_verifier", verifier},
            {"resource", daemon_url + "/mcp"}}),
      {{"Content-Type", "application/x-www-form-urlencoded"}});
  INFO(token.body);
  REQUIRE(token.status == 200);
  const rapidjson::Document json = kg::test::test_json(token.body);
  return json["access_token"].GetString();
}

}  // namespace kg::test
