// Paths inside every sandbox, whichever provider runs it: the local provider binds these from
// the host (local/local_sandbox_layout.hpp), the Kubernetes sandbox image has them built in
// (sandbox/Dockerfile). Runtime plugins and the session layer reach the sandbox's tools here.
#pragma once

namespace kg::sandbox {

inline constexpr const char* kSandboxServerPath = "/opt/kode-gopher/bin/kode-gopher-sandbox";
inline constexpr const char* kSandboxCacheprogPath = "/opt/kode-gopher/bin/kode-gopher-cacheprog";
// The fast build path of compiled-go (sandbox/fastbuild), and the data the prewarm computed for
// it, inside the base cache it describes.
inline constexpr const char* kSandboxFastbuildPath = "/opt/kode-gopher/bin/kode-gopher-fastbuild";
inline constexpr const char* kSandboxFastbuildDataPath =
    "/opt/kode-gopher/gocache-base/kode-gopher-fastbuild.data";
inline constexpr const char* kSandboxYaegiRunnerPath = "/opt/kode-gopher/bin/kode-gopher-yaegi";
inline constexpr const char* kSandboxYaegiCloudRunnerPath =
    "/opt/kode-gopher/bin/kode-gopher-yaegi-cloud";
inline constexpr const char* kSandboxBaseCachePath = "/opt/kode-gopher/gocache-base";
inline constexpr const char* kSandboxModcachePath = "/opt/kode-gopher/gomodcache";
inline constexpr const char* kSandboxExtraModcachePath = "/opt/kode-gopher/gomodcache-extra";
inline constexpr const char* kSandboxLockfilePath = "/opt/kode-gopher/lockfile";
inline constexpr const char* kSandboxBinaryCachePath = "/opt/kode-gopher/bincache";
inline constexpr const char* kSandboxHome = "/home/gopher";
// The Kubernetes sandbox image only: what it was built from, "<go version>\nlockfile <digest>\n"
// (sandbox/Dockerfile), checked against the daemon's before a sandbox is used.
inline constexpr const char* kSandboxImageStampPath = "/opt/kode-gopher/kode-gopher-image";
// A session's scratch folder, kept across its calls (a bounded tmpfs); /app/persist links to it
// while a program runs (never while a cacheable build runs: see the server's clean_state).
inline constexpr const char* kSandboxPersistPath = "/persist";
// [sandbox] network = allowlist: the daemon's egress proxy socket (egress_proxy.hpp), bound from
// <sandbox dir>/egress.sock; the server bridges 127.0.0.1:3128 to it.
inline constexpr const char* kSandboxEgressProxySocket = "/opt/kode-gopher/egress.sock";
// The system's CA certificates and the daemon's egress CA (sealed credentials, docs/egress.md).
inline constexpr const char* kSandboxCaBundlePath = "/opt/kode-gopher/ca-bundle.pem";
// The same bundle in a Kubernetes sandbox, whose root filesystem is the image's and read-only:
// uploaded into the workdir for each call that needs it (KubernetesSandboxHandle).
inline constexpr const char* kPodCaBundleFile = ".kode-gopher/ca-bundle.pem";  // under /app
inline constexpr const char* kPodCaBundlePath = "/app/.kode-gopher/ca-bundle.pem";
// The variables that name the bundle to what HTTPS clients read: Go, curl, Python (requests,
// google-auth), gcloud-style tools and gRPC.
inline constexpr const char* kCaBundleVariables[] = {
    "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE",
    "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"};

}  // namespace kg::sandbox
