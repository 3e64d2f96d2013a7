// Google's OAuth token endpoint, IAM Credentials, tokeninfo/userinfo and a GCE metadata server,
// played on loopback by a Poco HTTP server for the credential tests. Each endpoint checks what
// it receives the way Google does: the refresh token and client of a refresh grant; the RS256
// signature of a JWT-bearer assertion (with the test key's public half), its issuer, audience
// and scope; the source token of generateAccessToken; Metadata-Flavor on metadata requests.
// Every token it issues is random and remembered with whom it was issued for.
//
// Thread-safe: the server answers on its own threads, tests read and change it from theirs.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kg::test {

struct IssuedToken {
  std::string value;
  std::string subject;  // the user's email, the service account, or "metadata"
  std::string scope;
};

class LoopbackGoogle {
 public:
  LoopbackGoogle();
  ~LoopbackGoogle();
  LoopbackGoogle(const LoopbackGoogle&) = delete;
  LoopbackGoogle& operator=(const LoopbackGoogle&) = delete;

  std::string base_url() const;  // http://127.0.0.1:<port>
  std::string token_url() const { return base_url() + "/token"; }
  std::string tokeninfo_url() const { return base_url() + "/tokeninfo"; }
  std::string userinfo_url() const { return base_url() + "/userinfo"; }
  std::string metadata_host() const;  // 127.0.0.1:<port>, for GCE_METADATA_HOST

  // The authorized_user it accepts.
  std::string client_id = "test-client.apps.googleusercontent.com";
  std::string client_secret = "test-client-secret";
  std::string refresh_token = "1//test-refresh-token";
  std::string user_email = "dev@example.com";
  // The service account whose key it checks JWTs with (PEM public key), and the scope it
  // expects in them.
  std::string service_account_email = "runner@test-project.iam.gserviceaccount.com";
  std::string service_account_public_key_pem;
  std::string expected_scope = "https://www.googleapis.com/auth/cloud-platform";
  // Accounts that may be impersonated (by anyone holding a token it issued).
  std::vector<std::string> impersonable = {"target@test-project.iam.gserviceaccount.com"};
  std::string metadata_email = "workload@test-project.iam.gserviceaccount.com";
  std::string metadata_project = "test-project";

  // What the token endpoints answer: their lifetime, or a failure status for every request.
  std::atomic<int> expires_in{3599};
  std::atomic<int> fail_with_status{0};

  // Requests seen per "METHOD /path" (query left out), and the last JSON body of
  // generateAccessToken.
  int requests(const std::string& method_and_path) const;
  std::string last_iam_body() const;
  std::vector<IssuedToken> issued() const;
  // Whom `token` was issued for; empty when it never was.
  std::string subject_of(const std::string& token) const;

  // Called by the server's handler.
  struct Answer {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::map<std::string, std::string> headers;
  };
  Answer answer(const std::string& method, const std::string& uri,
                const std::map<std::string, std::string>& headers, const std::string& body);

 private:
  std::string issue(const std::string& subject, const std::string& scope);
  Answer token_grant(const std::string& body);
  Answer jwt_grant(const std::string& assertion);
  Answer generate_access_token(const std::string& path, const std::string& authorization,
                               const std::string& body);
  Answer metadata(const std::string& path, const std::map<std::string, std::string>& headers);

  struct Server;
  std::unique_ptr<Server> server_;
  mutable std::mutex mutex_;
  std::map<std::string, int> requests_;
  std::vector<IssuedToken> issued_;
  std::string last_iam_body_;
};

// A fresh 2048-bit RSA key: the private half as PKCS #8 PEM (as in Google's key files), the
// public half as PEM.
struct TestRsaKey {
  std::string private_pem;
  std::string public_pem;
};
TestRsaKey make_test_rsa_key();

}  // namespace kg::test
