// "pubsub.googleapis.com" for the hostile egress tests: pstest-tls (tests/tools/pstest_tls, built
// by scripts/setup.sh --tests; KG_PSTEST_TLS names it) serving cloud.google.com/go/pubsub/v2's
// pstest over TLS and HTTP/2 on kPubsubAddress:443 in the egress world's "internet" namespace,
// with the world's certificate (egress_world.hpp). It records each gRPC call it receives —
// method, `authorization` and `x-goog-request-params` — before serving it, so a test can prove
// which token reached "Google" (the real one, never the sandbox's placeholder) and compare the
// call's `api_calls` with what really arrived. One peer per test (pstest keeps its topics in
// memory); it dies with the test process. Tests only.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kg::test::egress {

struct PubsubCall {
  std::string method;          // "/google.pubsub.v1.Publisher/Publish"
  std::string authorization;   // "Bearer ..." as received
  std::string request_params;  // x-goog-request-params as received
};

class PubsubPeer {
 public:
  // Starts the peer, recording into a file in `folder`, and waits until it listens (throws
  // std::runtime_error with its log when it does not within 10 s).
  explicit PubsubPeer(const std::string& folder);
  ~PubsubPeer();
  PubsubPeer(const PubsubPeer&) = delete;
  PubsubPeer& operator=(const PubsubPeer&) = delete;

  // Every call received so far, in order.
  std::vector<PubsubCall> calls() const;

 private:
  std::string record_;
  std::string log_;
  pid_t pid_ = -1;
};

}  // namespace kg::test::egress
