// kode-gopher's configuration: one INI file (read by lib/ini, values with their lines), every key
// optional with a documented default (docs/configuration.md). Loaded once by the daemon at start
// and by the CLI (to find the socket); `kode-gopher config check` reports every issue.
//
// Empty path values mean "auto": the daemon resolves them against the install layout at start.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kg::config {

struct LimitsConfig {
  std::uint32_t run_timeout_ms = 60'000;      // [limits] run_timeout_ms, 100..3600000
  std::uint32_t max_run_timeout_ms = 600'000; // [limits] max_run_timeout_ms: a call's timeout_ms
  std::uint32_t build_timeout_ms = 300'000;   // [limits] build_timeout_ms, 1000..3600000
  std::uint64_t output_bytes = 4ull << 20;    // [limits] output_bytes, 1024..67108864 (per stream)
  std::uint64_t memory_bytes = 4ull << 30;    // [limits] memory_bytes: per sandbox, swap included
  std::uint32_t pids = 512;                   // [limits] pids: tasks per sandbox
  std::uint32_t cpu_seconds = 120;            // [limits] cpu_seconds: CPU time per process
  std::uint64_t file_size_bytes = 1ull << 30; // [limits] file_size_bytes: largest file written
  std::uint32_t open_files = 1024;            // [limits] open_files: descriptors per process
  std::uint64_t disk_bytes = 1ull << 30;      // [limits] disk_bytes: each of /app, /tmp, home
};

// Team mode (docs/team-mode.md): MCP over streamable HTTP with OAuth sign-in.
struct HttpConfig {
  std::string listen;           // [http] listen: host:port; empty: no HTTP endpoint
  std::string public_url;       // [http] public_url; empty: http://<listen>
  std::string tls_certificate;  // [http] tls_certificate (PEM); with tls_key, or neither
  std::string tls_key;          // [http] tls_key (PEM)
  bool trusted_proxy = false;   // [http] trusted_proxy: plain HTTP off loopback (TLS at a proxy)
  std::vector<std::string> allowed_origins;  // [http] allowed_origins, besides public_url's
  std::uint64_t max_request_bytes = 4ull << 20;  // [http] max_request_bytes, 1024..1073741824
  std::string auth = "oauth";   // [http] auth: oauth | none (none: loopback only)
};

struct OAuthConfig {
  std::string issuer;              // [oauth] issuer: upstream OIDC; empty: Google (effective_issuer)
  std::string client_id;           // [oauth] client_id: the daemon's client at the issuer
  std::string client_secret_file;  // [oauth] client_secret_file; empty: a public client
  std::vector<std::string> scopes;  // [oauth] scopes; empty: effective_scopes()'s defaults
  std::vector<std::string> allowed_users;    // [oauth] allowed_users: emails
  std::vector<std::string> allowed_domains;  // [oauth] allowed_domains: email domains
  std::uint32_t access_token_ttl_s = 900;        // 60..86400
  std::uint32_t refresh_token_ttl_s = 604800;    // 3600..7776000
  std::uint32_t registrations_per_hour = 30;     // per client address, 1..100000
};

struct TeamConfig {
  std::string run_as = "user";            // [team] run_as: user | daemon
  // [team] user_token_mode, for run_as = user: sealed (the sandbox holds a placeholder, the
  // egress proxy adds the user's token) | access-token (the sandbox gets the token itself).
  std::string user_token_mode = "sealed";
  std::uint32_t max_sessions_per_user = 4;    // 1..64
  std::uint32_t max_queued_per_user = 8;      // 1..256
  std::uint32_t calls_per_minute = 30;        // 1..6000
  std::uint32_t idle_timeout_s = 900;         // 5..86400
  // The HTTP server's bounds on slow and unsigned-in clients (docs/team-mode.md, "Slow and
  // unknown clients").
  std::uint32_t header_timeout_s = 10;              // 1..300
  std::uint32_t keep_alive_s = 15;                  // 1..3600
  std::uint32_t body_timeout_s = 30;                // 1..3600
  std::uint32_t max_connections_per_address = 64;   // 1..100000
  std::uint32_t unauthenticated_per_minute = 120;   // per client address, 1..100000
};

// The API policy (docs/api-policy.md): what Google API requests the egress proxy
// forwards where it reads them (sealed credentials). Calls may narrow it, never widen it.
struct ApiPolicyConfig {
  bool read_only = false;             // [api_policy] read_only
  std::vector<std::string> projects;  // [api_policy] projects; empty: any
  std::vector<std::string> buckets;   // [api_policy] buckets; empty: any
};

struct DaemonConfig {
  std::string source_path;     // the file it came from; empty when no file exists (all defaults)
  std::string socket_path;     // [daemon] socket; default $XDG_RUNTIME_DIR/kode-gopher/daemon.sock,
                               //   else <state_dir>/daemon.sock
  std::string state_dir;       // [daemon] state_dir; default $XDG_STATE_HOME/kode-gopher,
                               //   else $HOME/.local/state/kode-gopher
  std::string log_level = "info";          // [daemon] log_level: error|warn|info|debug
  std::uint32_t max_sessions = 16;         // [daemon] max_sessions, 1..1024
  std::uint32_t max_queued = 64;           // [daemon] max_queued, 0..4096
  std::uint32_t queue_timeout_ms = 120'000;  // [daemon] queue_timeout_ms, 100..3600000
  std::uint64_t max_request_bytes = 16ull << 20;  // [daemon] max_request_bytes, 1024..1073741824
  std::vector<std::string> plugin_dirs;    // [plugins] dirs, ':'-separated; empty: auto
  // [runtime] default: a runtime name a loaded plugin offers, or auto (checked once the plugins
  // are known: runtime_names_check.hpp).
  std::string default_runtime = "compiled-go";
  // [runtime] auto_order: the two runtimes auto chooses between, in order; empty: no auto.
  std::vector<std::string> auto_order = {"yaegi", "compiled-go"};
  // [credentials] plugin: creds-adc | creds-workload | none. The daemon asks it for a
  // short-lived token per call; when its plugin is not loaded, runs go without credentials.
  std::string credentials_plugin = "creds-adc";
  std::string sandbox_provider = "local";  // [sandbox] provider: kAvailableSandboxProviders
  std::string bwrap_path = "bwrap";        // [sandbox] bwrap
  std::string sandbox_server_binary;       // [sandbox] server_binary; empty: auto
  std::string cacheprog_binary;            // [sandbox] cacheprog_binary; empty: auto
  std::string yaegi_runner_binary;         // [sandbox] yaegi_runner_binary; empty: auto
  std::string go_root;                     // [sandbox] go_root; empty: the build's Go, else PATH's
  std::string base_cache_dir;              // [sandbox] base_cache_dir; empty: <state_dir>/gocache-base
  std::string base_modcache_dir;           // [sandbox] base_modcache_dir; empty: <state_dir>/gomodcache-base
  std::uint32_t sandbox_host_uid = 65534;  // [sandbox] host_uid (root daemons; 0: root)
  std::uint32_t warm_pool = 1;             // [sandbox] warm_pool: ready sandboxes, 0..8
  // [sandbox] network: auto|none|allowlist|egress|host (host: unsafe); auto: allowlist unless
  // [credentials] plugin = none, else none (resolved by the daemon at start).
  std::string sandbox_network = "auto";
  // [sandbox] allowed_hosts / allowed_ports: what network = allowlist admits (egress_allowlist.hpp).
  std::vector<std::string> sandbox_allowed_hosts = {"*.googleapis.com", "accounts.google.com"};
  std::vector<std::uint32_t> sandbox_allowed_ports = {443};
  // [sandbox] egress_upstream_ca_file: extra CAs the proxy trusts upstream; empty: none.
  std::string egress_upstream_ca_file;
  // [kubernetes]: read only with [sandbox] provider = kubernetes (kubernetes_sandbox_provider.hpp).
  std::string kubernetes_kubeconfig;       // kubeconfig; empty: $KUBECONFIG, ~/.kube/config, in-cluster
  std::string kubernetes_context;          // context; empty: the kubeconfig's current context
  std::string kubernetes_namespace;        // namespace; empty: the context's, else "default"
  std::string kubernetes_warm_pool;        // warm_pool; empty: kode-gopher-pool
  std::string kubernetes_router;           // router: host:port; empty: direct (in-cluster)
  std::string kubernetes_egress_proxy_address;  // egress_proxy_address; empty: no egress path
  std::string kubernetes_egress_proxy_listen;   // egress_proxy_listen; empty: 0.0.0.0:3128
  std::uint32_t kubernetes_claim_timeout_s = 300;  // claim_timeout_s, 5..3600
  std::uint32_t kubernetes_lease_s = 600;          // lease_s, 60..86400
  std::string kubernetes_daemon_id;        // daemon_id; empty: the host name (as a DNS label)
  std::string binary_cache_dir;            // [cache] binary_dir; empty: <state_dir>/bincache
  std::uint64_t binary_cache_max_bytes = 2ull << 30;  // [cache] binary_max_bytes, 0..1 TiB; 0: off
  std::uint64_t tidy_modules_max_bytes = 1ull << 30;  // [cache] tidy_modules_max_bytes, 1 MiB..1 TiB
  LimitsConfig limits;
  ApiPolicyConfig api_policy;
  HttpConfig http;
  OAuthConfig oauth;
  TeamConfig team;
  // Every other section ([compiled-go], ...; names lowercased): key -> value, handed to the plugin
  // of that name. Checked against the loaded plugins' declared keys (plugin_section_check.hpp).
  std::map<std::string, std::map<std::string, std::string>> plugin_sections;
  // The line of each of those keys in the file, and of a section's first key under "".
  std::map<std::string, std::map<std::string, int>> plugin_section_lines;
  // The line of each daemon key the file sets ("section.key" -> line), for the checks that run
  // once the plugins are known (runtime_names_check.hpp).
  std::map<std::string, int> key_lines;
};

struct ConfigIssue {
  enum class Severity { warning, error };
  Severity severity;
  std::string file;     // the config file's path
  std::string key;      // "section.key", or empty for file-level problems
  std::string message;  // e.g. "must be an integer from 1 to 1024, got \"0\""
  int line = 0;         // the line of the value (or malformed line) in `file`; 0: none

  // "<file>:<line>: <key>: <message>" (without ":<line>" or "<key>: " when there is none)
  std::string to_string() const;
};

// Thrown by load_config when the file has errors; what() lists every one, one per line.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& message, std::vector<ConfigIssue> issues)
      : std::runtime_error(message), issues_(std::move(issues)) {}
  const std::vector<ConfigIssue>& issues() const noexcept { return issues_; }

 private:
  std::vector<ConfigIssue> issues_;
};

struct LoadedConfig {
  DaemonConfig config;
  std::vector<ConfigIssue> warnings;  // unknown keys of the daemon's sections, ignored keys
};

// The installed system-wide config (<sysconfdir>/kode-gopher/kode-gopher.ini, /etc/... for a
// /usr install; docs/install.md), read when a user has none of their own.
std::string system_config_path();
// $KODE_GOPHER_CONFIG, else the user's file ($XDG_CONFIG_HOME/kode-gopher/kode-gopher.ini, else
// $HOME/.config/kode-gopher/kode-gopher.ini) when it exists, else `system_file` when it exists,
// else the user's path (missing: all defaults).
std::string default_config_path(const std::string& system_file);
std::string default_config_path();  // with system_config_path()

// Loads `path` (or default_config_path() when nullopt). A missing default file means all
// defaults; a missing explicitly named file is an error. Throws ConfigError.
LoadedConfig load_config(const std::optional<std::string>& path);

// Every issue in the file (warnings and errors) but those of plugin sections, which need the
// plugins (plugin_section_check.hpp; `kode-gopherd --check-config` adds them). Never throws.
std::vector<ConfigIssue> check_config_file(const std::string& path);

}  // namespace kg::config
