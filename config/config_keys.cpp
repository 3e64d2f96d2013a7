#include "config_keys.hpp"

#include <algorithm>

#include "api_policy_config_keys.hpp"
#include "sandbox_providers.hpp"
#include "team_config_keys.hpp"

namespace kg::config {
namespace {

constexpr std::string_view kLogLevels[] = {"error", "warn", "info", "debug"};
constexpr std::string_view kCredentialPlugins[] = {"creds-adc", "creds-workload", "none"};
constexpr std::string_view kSandboxNetworks[] = {"auto", "none", "allowlist", "egress", "host"};

// sockaddr_un::sun_path holds 108 bytes including the terminating NUL.
constexpr std::size_t kUnixSocketPathMax = 107;

std::string join_items(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string join_paths(const std::vector<std::string>& paths) {
  std::string out;
  for (const auto& path : paths) {
    if (!out.empty()) out += ':';
    out += path;
  }
  return out;
}

// Table order is the order of docs/configuration.md, of errors, and of "known keys" lists.
constexpr ConfigKeySpec kKeySpecs[] = {
    {.section = "daemon", .name = "socket", .kind = ValueKind::absolute_path,
     .max_bytes = kUnixSocketPathMax,
     .default_text = "`$XDG_RUNTIME_DIR/kode-gopher/daemon.sock`, else `<state_dir>/daemon.sock`",
     .help = "Unix socket the daemon serves its API on (mode 0600); the CLI connects to it.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.socket_path = v.text; },
     .current = [](const DaemonConfig& c) { return c.socket_path; }},
    {.section = "daemon", .name = "state_dir", .kind = ValueKind::absolute_path,
     .default_text = "`/var/lib/kode-gopher` for root; else `$XDG_STATE_HOME/kode-gopher`, else "
                     "`~/.local/state/kode-gopher` (`/tmp/kode-gopher-<uid>` when HOME is unset)",
     .help = "Directory of the SQLite database of sessions and calls and the base Go build cache.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.state_dir = v.text; },
     .current = [](const DaemonConfig& c) { return c.state_dir; }},
    {.section = "daemon", .name = "log_level", .kind = ValueKind::choice, .choices = kLogLevels,
     .default_text = "info",
     .help = "Least severe message the daemon writes to stderr.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.log_level = v.text; },
     .current = [](const DaemonConfig& c) { return c.log_level; }},
    {.section = "daemon", .name = "max_sessions", .kind = ValueKind::integer, .min = 1,
     .max = 1024, .default_text = "16",
     .help = "Sessions (each with its own sandbox) open at once; more callers wait in a bounded "
             "queue and get queue_full when it is full.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.max_sessions = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.max_sessions); }},
    {.section = "daemon", .name = "max_queued", .kind = ValueKind::integer, .min = 0,
     .max = 4096, .default_text = "64",
     .help = "Callers that may wait (first come, first served) for a session slot when "
             "max_sessions are open; one more gets queue_full at once. 0: no waiting.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.max_queued = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.max_queued); }},
    {.section = "daemon", .name = "queue_timeout_ms", .kind = ValueKind::integer, .min = 100,
     .max = 3600000, .default_text = "120000",
     .help = "Longest a caller waits for a session slot before it gets queue_full.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.queue_timeout_ms = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.queue_timeout_ms); }},
    {.section = "daemon", .name = "max_request_bytes", .kind = ValueKind::integer, .min = 1024,
     .max = 1073741824, .default_text = "16777216",
     .help = "Largest request body the daemon API accepts (16 MiB by default); larger ones "
             "get 413.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.max_request_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.max_request_bytes); }},
    {.section = "plugins", .name = "dirs", .kind = ValueKind::path_list,
     .default_text = "auto: the installed plugin directory",
     .help = "Directories searched for plugins, in order; plugin names resolve only inside them.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.plugin_dirs = v.list; },
     .current = [](const DaemonConfig& c) { return join_paths(c.plugin_dirs); }},
    {.section = "runtime", .name = "default", .kind = ValueKind::runtime_name,
     .default_text = "compiled-go",
     .help = "Runtime of calls that name none: a runtime name a loaded runtime plugin offers "
             "(compiled-go: go build, then run the binary; yaegi: the Yaegi interpreter in the "
             "same sandbox), or auto (the choice runtime.auto_order describes; the result says "
             "why). `kode-gopher plugins` lists what the loaded plugins offer.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.default_runtime = v.text; },
     .current = [](const DaemonConfig& c) { return c.default_runtime; }},
    {.section = "runtime", .name = "auto_order", .kind = ValueKind::runtime_list,
     .default_text = "yaegi, compiled-go",
     .help = "What the runtime auto chooses between, in order: two runtime names. The first "
             "gets each auto call and either runs it or hands it to the second before the "
             "program starts (yaegi hands off what its static check finds unsafe for the "
             "interpreter, docs/runtimes.md); the second runs what it is handed. Empty: calls "
             "cannot ask for auto.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.auto_order = v.list; },
     .current = [](const DaemonConfig& c) { return join_items(c.auto_order); }},
    {.section = "credentials", .name = "plugin", .kind = ValueKind::choice,
     .choices = kCredentialPlugins, .default_text = "creds-adc",
     .help = "Whose Google identity programs run as, asked per call: creds-adc (the daemon "
             "user's Application Default Credentials; without any, programs run without), "
             "creds-workload (the metadata server's identity the daemon runs under), or none. "
             "Sandboxes get only a short-lived access token (docs/credentials.md).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.credentials_plugin = v.text; },
     .current = [](const DaemonConfig& c) { return c.credentials_plugin; }},
    {.section = "sandbox", .name = "provider", .kind = ValueKind::choice,
     .choices = kAvailableSandboxProviders, .default_text = "local",
     .help = "Where sandboxes run: local (bubblewrap namespaces on this host) or kubernetes "
             "(agent-sandbox claims on a cluster; the [kubernetes] keys, docs/kubernetes.md).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.sandbox_provider = v.text; },
     .current = [](const DaemonConfig& c) { return c.sandbox_provider; }},
    {.section = "sandbox", .name = "bwrap", .kind = ValueKind::program, .default_text = "bwrap",
     .help = "The bubblewrap binary the local provider starts sandboxes with.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.bwrap_path = v.text; },
     .current = [](const DaemonConfig& c) { return c.bwrap_path; }},
    {.section = "sandbox", .name = "server_binary", .kind = ValueKind::absolute_path,
     .default_text = "auto: the installed kode-gopher-sandbox",
     .help = "The kode-gopher-sandbox server started inside each local sandbox.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.sandbox_server_binary = v.text; },
     .current = [](const DaemonConfig& c) { return c.sandbox_server_binary; }},
    {.section = "sandbox", .name = "cacheprog_binary", .kind = ValueKind::absolute_path,
     .default_text = "auto: the installed one",
     .help = "The GOCACHEPROG helper that gives each sandbox a copy-on-write view of the base "
             "build cache.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.cacheprog_binary = v.text; },
     .current = [](const DaemonConfig& c) { return c.cacheprog_binary; }},
    {.section = "sandbox", .name = "yaegi_runner_binary", .kind = ValueKind::absolute_path,
     .default_text = "auto: the installed one, if any",
     .help = "The Yaegi runner (kode-gopher-yaegi) mounted read-only in every sandbox for the "
             "yaegi runtime. Without one the yaegi plugin disables itself.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.yaegi_runner_binary = v.text; },
     .current = [](const DaemonConfig& c) { return c.yaegi_runner_binary; }},
    {.section = "sandbox", .name = "go_root", .kind = ValueKind::absolute_path,
     .default_text = "auto: the Go kode-gopher was built with, else `go env GOROOT`",
     .help = "The Go toolchain mounted read-only into local sandboxes.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.go_root = v.text; },
     .current = [](const DaemonConfig& c) { return c.go_root; }},
    {.section = "sandbox", .name = "base_cache_dir", .kind = ValueKind::absolute_path,
     .default_text = "auto: `<state_dir>/gocache-base`",
     .help = "The prewarmed Go build cache every local sandbox starts from.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.base_cache_dir = v.text; },
     .current = [](const DaemonConfig& c) { return c.base_cache_dir; }},
    {.section = "sandbox", .name = "base_modcache_dir", .kind = ValueKind::absolute_path,
     .default_text = "auto: `<state_dir>/gomodcache-base`",
     .help = "The Go module cache holding the curated lockfile's modules, read-only in sandboxes.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.base_modcache_dir = v.text; },
     .current = [](const DaemonConfig& c) { return c.base_modcache_dir; }},
    {.section = "sandbox", .name = "network", .kind = ValueKind::choice,
     .choices = kSandboxNetworks, .default_text = "auto",
     .help = "Network of local sandboxes: auto (allowlist when calls carry credentials, "
             "i.e. `credentials.plugin` is not none or team mode signs users in with "
             "`team.run_as` = user; else none); none (a private namespace with nothing but its own loopback); "
             "allowlist (no route out but the daemon's egress proxy, which admits only "
             "`allowed_hosts` on `allowed_ports` and refuses names that resolve to loopback, "
             "private, shared, link-local, multicast, metadata or host addresses; programs get "
             "HTTPS_PROXY/HTTP_PROXY, see docs/egress.md); "
             "egress (outbound access through slirp4netns, with DNS; the host's loopback and "
             "own addresses, private, shared and link-local ranges and cloud metadata "
             "addresses are refused); or host (the host's network namespace, loopback services "
             "included). host is an explicit opt-in for benchmarks and emulators on loopback; "
             "it is unsafe for untrusted code.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.sandbox_network = v.text; },
     .current = [](const DaemonConfig& c) { return c.sandbox_network; }},
    {.section = "sandbox", .name = "allowed_hosts", .kind = ValueKind::host_list,
     .default_text = "*.googleapis.com, accounts.google.com",
     .help = "With network = allowlist: the host names programs may reach through the egress "
             "proxy. Exact names, `*.suffix` patterns (any name under the suffix) and IP "
             "addresses (literals are refused unless listed exactly); the addresses a name "
             "resolves to must still be public.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.sandbox_allowed_hosts = v.list; },
     .current = [](const DaemonConfig& c) { return join_items(c.sandbox_allowed_hosts); }},
    {.section = "sandbox", .name = "allowed_ports", .kind = ValueKind::port_list,
     .default_text = "443",
     .help = "With network = allowlist: the ports programs may reach through the egress proxy.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.sandbox_allowed_ports.clear();
       for (const auto& port : v.list) {
         c.sandbox_allowed_ports.push_back(static_cast<std::uint32_t>(std::stoul(port)));
       }
     },
     .current = [](const DaemonConfig& c) {
       std::vector<std::string> ports;
       for (const auto port : c.sandbox_allowed_ports) ports.push_back(std::to_string(port));
       return join_items(ports);
     }},
    {.section = "sandbox", .name = "egress_upstream_ca_file", .kind = ValueKind::absolute_path,
     .default_text = "none: the system's CA certificates only",
     .help = "With network = allowlist: a PEM file of CA certificates the egress proxy also "
             "trusts when it verifies a Google API host it terminates TLS for (sealed "
             "credentials, docs/egress.md), such as a corporate TLS proxy's CA. The system's "
             "CA certificates are always trusted.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.egress_upstream_ca_file = v.text; },
     .current = [](const DaemonConfig& c) { return c.egress_upstream_ca_file; }},
    {.section = "sandbox", .name = "host_uid", .kind = ValueKind::integer, .min = 0,
     .max = 4294967294, .default_text = "65534",
     .help = "When the daemon runs as root: the unprivileged host uid a sandbox's user maps to "
             "(0 maps it to root: an explicit choice that `config check` and /v1/health flag). "
             "The Go toolchain, the caches and the state dir must be readable by it, else the "
             "daemon refuses to start and names the path. An unprivileged daemon always maps to "
             "its own uid.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.sandbox_host_uid = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.sandbox_host_uid); }},
    {.section = "sandbox", .name = "warm_pool", .kind = ValueKind::integer, .min = 0, .max = 8,
     .default_text = "1",
     .help = "Sandboxes kept started (each has run one command) for new sessions, so a first "
             "call does not wait for a sandbox to start. 0 turns the pool off.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.warm_pool = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.warm_pool); }},
    {.section = "kubernetes", .name = "kubeconfig", .kind = ValueKind::absolute_path,
     .default_text = "auto: the first file of `$KUBECONFIG`, else `~/.kube/config`, else the "
                     "in-cluster service account",
     .help = "The kubeconfig the kubernetes provider reads (server, CA, token, client certificate "
             "or exec plugin).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_kubeconfig = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_kubeconfig; }},
    {.section = "kubernetes", .name = "context", .kind = ValueKind::text,
     .default_text = "the kubeconfig's `current-context`",
     .help = "The kubeconfig context to use.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_context = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_context; }},
    {.section = "kubernetes", .name = "namespace", .kind = ValueKind::dns_label,
     .default_text = "the context's namespace (in a pod: the service account's), else `default`",
     .help = "The namespace of the warm pool, the claims and the sandbox-router.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_namespace = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_namespace; }},
    {.section = "kubernetes", .name = "warm_pool", .kind = ValueKind::dns_label,
     .default_text = "`kode-gopher-pool`",
     .help = "The SandboxWarmPool each session's SandboxClaim names (manifests/ makes "
             "kode-gopher-pool).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_warm_pool = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_warm_pool; }},
    {.section = "kubernetes", .name = "router", .kind = ValueKind::host_port,
     .default_text = "none: each sandbox's service at `<serviceFQDN>:8888` (in-cluster only)",
     .help = "The sandbox-router (sandbox-router-svc:8080, or a port-forward to it) the daemon "
             "reaches sandboxes through.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_router = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_router; }},
    {.section = "kubernetes", .name = "egress_proxy_address", .kind = ValueKind::host_port,
     .default_text = "none: the daemon is no egress path for its sandboxes (they have what the "
                     "SandboxTemplate's NetworkPolicy admits)",
     .help = "host:port at which sandbox pods reach this daemon's egress proxy (the in-cluster "
             "daemon's Service, kode-gopherd-egress:3128 in manifests/overlays/team). Set: each "
             "call's commands get HTTPS_PROXY with a credential of that call alone and the egress "
             "CA bundle, so [sandbox] allowed_hosts/allowed_ports, sealed credentials, the API "
             "policy and api_calls hold as with local sandboxes (docs/kubernetes.md).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_egress_proxy_address = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_egress_proxy_address; }},
    {.section = "kubernetes", .name = "egress_proxy_listen", .kind = ValueKind::host_port,
     .default_text = "`0.0.0.0:3128`",
     .help = "Where the daemon listens for its sandbox pods' egress (read only with "
             "egress_proxy_address).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_egress_proxy_listen = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_egress_proxy_listen; }},
    {.section = "kubernetes", .name = "claim_timeout_s", .kind = ValueKind::integer, .min = 5,
     .max = 3600, .default_text = "300",
     .help = "How long a new sandbox may take to bind and become Ready before the call fails (and "
             "its claim is deleted).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.kubernetes_claim_timeout_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.kubernetes_claim_timeout_s); }},
    {.section = "kubernetes", .name = "lease_s", .kind = ValueKind::integer, .min = 60,
     .max = 86400, .default_text = "600",
     .help = "Each claim's lease (spec.lifecycle.shutdownTime), renewed every third of it: a claim "
             "the daemon stops renewing is deleted by the controller when it runs out.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.kubernetes_lease_s = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.kubernetes_lease_s); }},
    {.section = "kubernetes", .name = "daemon_id", .kind = ValueKind::dns_label,
     .default_text = "the host name, lowercased, a '-' and 8 random hex digits, made once and kept "
                     "in `<state_dir>/kubernetes-daemon-id` (so two machines of one name differ, "
                     "and a restart finds its own claims)",
     .help = "Labels this daemon's claims, so the daemon deletes at start what a crashed "
             "predecessor with the same id left. Unique per daemon sharing a namespace.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.kubernetes_daemon_id = v.text; },
     .current = [](const DaemonConfig& c) { return c.kubernetes_daemon_id; }},
    {.section = "cache", .name = "binary_dir", .kind = ValueKind::absolute_path,
     .default_text = "auto: `<state_dir>/bincache`",
     .help = "Built programs kept by content hash, so an identical resubmission skips the build.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.binary_cache_dir = v.text; },
     .current = [](const DaemonConfig& c) { return c.binary_cache_dir; }},
    {.section = "cache", .name = "binary_max_bytes", .kind = ValueKind::integer, .min = 0,
     .max = 1099511627776, .default_text = "2147483648",
     .help = "Size bound of the binary cache; the least recently used programs go first. 0 turns "
             "the cache off.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.binary_cache_max_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.binary_cache_max_bytes); }},
    {.section = "cache", .name = "tidy_modules_max_bytes", .kind = ValueKind::integer,
     .min = 1048576, .max = 1099511627776, .default_text = "1073741824",
     .help = "Size bound of the modules go mod tidy fetched for imports outside the curated "
             "lockfile (`<state_dir>/gomodcache-extra`, all users together); the least recently "
             "used module versions go first. /v1/health reports its use (tidy_modules).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.tidy_modules_max_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.tidy_modules_max_bytes); }},
    {.section = "limits", .name = "run_timeout_ms", .kind = ValueKind::integer, .min = 100,
     .max = 3600000, .default_text = "60000",
     .help = "Wall-clock limit of a program's run phase when the call does not ask for another "
             "(timeout_ms); at most limits.max_run_timeout_ms.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.limits.run_timeout_ms = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.run_timeout_ms); }},
    {.section = "limits", .name = "max_run_timeout_ms", .kind = ValueKind::integer, .min = 100,
     .max = 3600000, .default_text = "600000",
     .help = "The longest run phase a call may ask for with timeout_ms (the API, `kode-gopher "
             "exec --timeout`, execute_go_code's timeout_ms); a call asking for more is refused "
             "with invalid_input naming this key.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.limits.max_run_timeout_ms = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.max_run_timeout_ms); }},
    {.section = "limits", .name = "build_timeout_ms", .kind = ValueKind::integer, .min = 1000,
     .max = 3600000, .default_text = "300000",
     .help = "Wall-clock limit of the build phase (go build, and go mod tidy when needed).",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.limits.build_timeout_ms = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.build_timeout_ms); }},
    {.section = "limits", .name = "output_bytes", .kind = ValueKind::integer, .min = 1024,
     .max = 67108864, .default_text = "4194304",
     .help = "Bytes kept of each of stdout and stderr per call (4 MiB by default); the rest is "
             "cut with a truncation marker.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.limits.output_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.output_bytes); }},
    {.section = "limits", .name = "memory_bytes", .kind = ValueKind::integer, .min = 67108864,
     .max = 1099511627776, .default_text = "4294967296",
     .help = "Memory of one sandbox, swap and its tmpfs folders included (cgroup); a call may ask "
             "for less. Going over it kills the program: status oom.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.limits.memory_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.memory_bytes); }},
    {.section = "limits", .name = "pids", .kind = ValueKind::integer, .min = 32, .max = 65536,
     .default_text = "512",
     .help = "Processes and threads in one sandbox at once (cgroup); more forks fail with EAGAIN. "
             "A call may ask for less.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.limits.pids = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.pids); }},
    {.section = "limits", .name = "cpu_seconds", .kind = ValueKind::integer, .min = 1,
     .max = 86400, .default_text = "120",
     .help = "CPU time of each process (RLIMIT_CPU); a program over it is stopped with status "
             "timeout. A call may ask for less.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.limits.cpu_seconds = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.cpu_seconds); }},
    {.section = "limits", .name = "file_size_bytes", .kind = ValueKind::integer, .min = 1048576,
     .max = 1099511627776, .default_text = "1073741824",
     .help = "Largest file a process may write (RLIMIT_FSIZE); bigger writes fail with EFBIG. A "
             "call may ask for less.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.limits.file_size_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.file_size_bytes); }},
    {.section = "limits", .name = "open_files", .kind = ValueKind::integer, .min = 64,
     .max = 1048576, .default_text = "1024",
     .help = "Open file descriptors per process (RLIMIT_NOFILE). A call may ask for less.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) {
       c.limits.open_files = static_cast<std::uint32_t>(v.number);
     },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.open_files); }},
    {.section = "limits", .name = "disk_bytes", .kind = ValueKind::integer, .min = 16777216,
     .max = 1099511627776, .default_text = "1073741824",
     .help = "Size of each private writable folder of a sandbox (/app, /tmp and the home, "
             "memory-backed tmpfs counted in memory_bytes); a full one gives ENOSPC.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.limits.disk_bytes = v.number; },
     .current = [](const DaemonConfig& c) { return std::to_string(c.limits.disk_bytes); }},
};

std::string join_choices(std::span<const std::string_view> choices, std::string_view quote) {
  std::string out;
  for (const auto choice : choices) {
    if (!out.empty()) out += ", ";
    out.append(quote).append(choice).append(quote);
  }
  return out;
}

}  // namespace

bool default_is_description(ValueKind kind) {
  return kind == ValueKind::absolute_path || kind == ValueKind::path_list ||
         kind == ValueKind::text || kind == ValueKind::dns_label || kind == ValueKind::host_port ||
         kind == ValueKind::word_list;
}

std::string ConfigKeySpec::full_name() const {
  std::string out(section);
  out += '.';
  out += name;
  return out;
}

std::span<const ConfigKeySpec> config_key_specs() {
  static const std::vector<ConfigKeySpec> all = [] {
    std::vector<ConfigKeySpec> specs(std::begin(kKeySpecs), std::end(kKeySpecs));
    const auto api_policy = api_policy_config_key_specs();
    specs.insert(specs.end(), api_policy.begin(), api_policy.end());
    const auto team = team_config_key_specs();
    specs.insert(specs.end(), team.begin(), team.end());
    return specs;
  }();
  return all;
}

std::vector<std::string_view> config_section_names() {
  std::vector<std::string_view> names;
  for (const auto& spec : config_key_specs()) {
    if (std::find(names.begin(), names.end(), spec.section) == names.end()) {
      names.push_back(spec.section);
    }
  }
  return names;
}

std::string describe_allowed_values(const ConfigKeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::integer:
      return "an integer from " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
    case ValueKind::choice:
      return "one of " + join_choices(spec.choices, "");
    case ValueKind::absolute_path:
      if (spec.max_bytes != 0) {
        return "an absolute path of at most " + std::to_string(spec.max_bytes) + " bytes";
      }
      return "an absolute path";
    case ValueKind::program:
      return "an absolute path or a program name looked up in PATH";
    case ValueKind::path_list:
      return "':'-separated absolute paths";
    case ValueKind::host_list:
      return "','-separated host names, IP addresses and `*.suffix` patterns";
    case ValueKind::port_list:
      return "','-separated ports from 1 to 65535";
    case ValueKind::text:
      return "one line of text";
    case ValueKind::dns_label:
      return "a Kubernetes name (lowercase letters, digits and '-', at most 63 characters)";
    case ValueKind::host_port:
      return "host:port (or http://host:port)";
    case ValueKind::word_list:
      return "words separated by spaces or commas";
    case ValueKind::runtime_name:
      return "a runtime name the loaded plugins offer, or auto (`kode-gopher plugins` lists them)";
    case ValueKind::runtime_list:
      return "runtime names the loaded plugins offer, separated by spaces or commas";
  }
  return "a value";
}

std::string config_reference_markdown() {
  std::string out =
      "| Key | Default | Allowed values | Meaning |\n"
      "|---|---|---|---|\n";
  for (const auto& spec : config_key_specs()) {
    out += "| `" + spec.full_name() + "` | ";
    out += default_is_description(spec.kind) ? std::string(spec.default_text)
                                             : "`" + std::string(spec.default_text) + "`";
    out += " | ";
    out += spec.kind == ValueKind::choice ? join_choices(spec.choices, "`")
                                          : describe_allowed_values(spec);
    out += " | ";
    out.append(spec.help);
    out += " |\n";
  }
  return out;
}

}  // namespace kg::config
