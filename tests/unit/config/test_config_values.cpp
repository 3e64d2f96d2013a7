// Values: every key read from a file, every kind of bad value refused with its exact message.
#include <doctest/doctest.h>

#include <map>

#include "config_keys.hpp"
#include "config_test_support.hpp"
#include "daemon_config.hpp"

namespace kg::config {
namespace {

using test::expected_default_state_dir;
using test::issues_for;
using test::isolated_env;
using test::ScopedEnv;
using test::TempDir;
using test::write_file;


std::string one_issue(const TempDir& dir, const std::string& section, const std::string& key,
                      const std::string& value) {
  const auto issues = issues_for(dir, "[" + section + "]\n" + key + " = " + value + "\n");
  REQUIRE(issues.size() == 1);
  return issues[0];
}

// The same for a [kubernetes] key, with the provider that reads it.
std::string one_kubernetes_issue(const TempDir& dir, const std::string& key, const std::string& value) {
  const auto issues = issues_for(
      dir, "[sandbox]\nprovider = kubernetes\n[kubernetes]\n" + key + " = " + value + "\n");
  REQUIRE(issues.size() == 1);
  return issues[0];
}

TEST_CASE("every key is read from the file") {
  TempDir dir;
  auto env = isolated_env("/home/tester");
  const auto file = write_file(dir / "kg.ini",
                               "[daemon]\n"
                               "socket = /run/kg/d.sock\n"
                               "state_dir = /var/lib/kg\n"
                               "log_level = debug\n"
                               "max_sessions = 1024\n"
                               "max_queued = 0\n"
                               "queue_timeout_ms = 3600000\n"
                               "max_request_bytes = 1024\n"
                               "[plugins]\n"
                               "dirs = /opt/kg/plugins::~/kg-plugins:\n"
                               "[runtime]\n"
                               "default = compiled-go\n"
                               "auto_order = tinygo compiled-go\n"
                               "[credentials]\n"
                               "plugin = creds-workload\n"
                               "[sandbox]\n"
                               "provider = kubernetes\n"
                               "bwrap = /usr/local/bin/bwrap\n"
                               "server_binary = /opt/kg/kode-gopher-sandbox\n"
                               "cacheprog_binary = ~/bin/cacheprog\n"
                               "yaegi_runner_binary = /opt/kg/kode-gopher-yaegi\n"
                               "go_root = /usr/local/go\n"
                               "base_cache_dir = /var/cache/kg\n"
                               "base_modcache_dir = /var/cache/kg-mod\n"
                               "network = host\n"
                               "allowed_hosts = *.example.com , api.example.org,199.36.153.8\n"
                               "allowed_ports = 443, 8443\n"
                               "egress_upstream_ca_file = /etc/corp/proxy-ca.pem\n"
                               "host_uid = 0\n"
                               "warm_pool = 8\n"
                               "[api_policy]\n"
                               "read_only = true\n"
                               "projects = proj-a, 123456\n"
                               "buckets = b-1 logs.example.com\n"
                               "[kubernetes]\n"
                               "kubeconfig = ~/.kube/team\n"
                               "context = gke_proj_europe-west1_team\n"
                               "namespace = kode-gopher\n"
                               "warm_pool = go-pool\n"
                               "router = http://127.0.0.1:8080/\n"
                               "egress_proxy_address = kode-gopherd-egress:3128\n"
                               "egress_proxy_listen = 10.0.0.5:3129\n"
                               "claim_timeout_s = 3600\n"
                               "lease_s = 60\n"
                               "daemon_id = team-daemon\n"
                               "[cache]\n"
                               "binary_dir = /var/cache/kg-bin\n"
                               "binary_max_bytes = 0\n"
                               "tidy_modules_max_bytes = 1048576\n"
                               "[limits]\n"
                               "run_timeout_ms = 3600000\n"
                               "max_run_timeout_ms = 3600000\n"
                               "build_timeout_ms = 1000\n"
                               "output_bytes = 67108864\n"
                               "memory_bytes = 67108864\n"
                               "pids = 65536\n"
                               "cpu_seconds = 1\n"
                               "file_size_bytes = 1048576\n"
                               "open_files = 64\n"
                               "disk_bytes = 16777216\n");
  const auto loaded = load_config(file);
  // host_uid = 0 is allowed, and always flagged: sandboxes would run as host root.
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].key == "sandbox.host_uid");
  CHECK(loaded.warnings[0].message.find("host root") != std::string::npos);
  const auto& config = loaded.config;
  CHECK(config.source_path == file);
  CHECK(config.socket_path == "/run/kg/d.sock");
  CHECK(config.state_dir == "/var/lib/kg");
  CHECK(config.log_level == "debug");
  CHECK(config.max_sessions == 1024);
  CHECK(config.max_queued == 0);
  CHECK(config.queue_timeout_ms == 3600000);
  CHECK(config.max_request_bytes == 1024);
  CHECK(config.plugin_dirs ==
        std::vector<std::string>{"/opt/kg/plugins", "/home/tester/kg-plugins"});
  CHECK(config.default_runtime == "compiled-go");
  CHECK(config.auto_order == std::vector<std::string>{"tinygo", "compiled-go"});
  CHECK(config.credentials_plugin == "creds-workload");
  CHECK(config.sandbox_provider == "kubernetes");
  CHECK(config.bwrap_path == "/usr/local/bin/bwrap");
  CHECK(config.sandbox_server_binary == "/opt/kg/kode-gopher-sandbox");
  CHECK(config.cacheprog_binary == "/home/tester/bin/cacheprog");
  CHECK(config.yaegi_runner_binary == "/opt/kg/kode-gopher-yaegi");
  CHECK(config.go_root == "/usr/local/go");
  CHECK(config.base_cache_dir == "/var/cache/kg");
  CHECK(config.base_modcache_dir == "/var/cache/kg-mod");
  CHECK(config.sandbox_network == "host");
  CHECK(config.sandbox_allowed_hosts ==
        std::vector<std::string>{"*.example.com", "api.example.org", "199.36.153.8"});
  CHECK(config.sandbox_allowed_ports == std::vector<std::uint32_t>{443, 8443});
  CHECK(config.egress_upstream_ca_file == "/etc/corp/proxy-ca.pem");
  CHECK(config.binary_cache_dir == "/var/cache/kg-bin");
  CHECK(config.binary_cache_max_bytes == 0);
  CHECK(config.tidy_modules_max_bytes == 1048576);
  CHECK(config.limits.run_timeout_ms == 3600000);
  CHECK(config.limits.max_run_timeout_ms == 3600000);
  CHECK(config.limits.build_timeout_ms == 1000);
  CHECK(config.limits.output_bytes == 67108864);
  CHECK(config.limits.memory_bytes == 67108864);
  CHECK(config.limits.pids == 65536);
  CHECK(config.limits.cpu_seconds == 1);
  CHECK(config.limits.file_size_bytes == 1048576);
  CHECK(config.limits.open_files == 64);
  CHECK(config.limits.disk_bytes == 16777216);
  CHECK(config.sandbox_host_uid == 0);
  CHECK(config.warm_pool == 8);

  // The table's `current` reads back the field its `assign` wrote, for every key.
  const std::map<std::string, std::string> expected = {
      {"daemon.socket", "/run/kg/d.sock"},
      {"daemon.state_dir", "/var/lib/kg"},
      {"daemon.log_level", "debug"},
      {"daemon.max_sessions", "1024"},
      {"daemon.max_queued", "0"},
      {"daemon.queue_timeout_ms", "3600000"},
      {"daemon.max_request_bytes", "1024"},
      {"plugins.dirs", "/opt/kg/plugins:/home/tester/kg-plugins"},
      {"runtime.default", "compiled-go"},
      {"runtime.auto_order", "tinygo, compiled-go"},
      {"credentials.plugin", "creds-workload"},
      {"sandbox.provider", "kubernetes"},
      {"sandbox.bwrap", "/usr/local/bin/bwrap"},
      {"sandbox.server_binary", "/opt/kg/kode-gopher-sandbox"},
      {"sandbox.cacheprog_binary", "/home/tester/bin/cacheprog"},
      {"sandbox.yaegi_runner_binary", "/opt/kg/kode-gopher-yaegi"},
      {"sandbox.go_root", "/usr/local/go"},
      {"sandbox.base_cache_dir", "/var/cache/kg"},
      {"sandbox.base_modcache_dir", "/var/cache/kg-mod"},
      {"sandbox.network", "host"},
      {"sandbox.allowed_hosts", "*.example.com, api.example.org, 199.36.153.8"},
      {"sandbox.allowed_ports", "443, 8443"},
      {"sandbox.egress_upstream_ca_file", "/etc/corp/proxy-ca.pem"},
      {"cache.binary_dir", "/var/cache/kg-bin"},
      {"cache.binary_max_bytes", "0"},
      {"cache.tidy_modules_max_bytes", "1048576"},
      {"limits.run_timeout_ms", "3600000"},
      {"limits.max_run_timeout_ms", "3600000"},
      {"limits.build_timeout_ms", "1000"},
      {"limits.output_bytes", "67108864"},
      {"limits.memory_bytes", "67108864"},
      {"limits.pids", "65536"},
      {"limits.cpu_seconds", "1"},
      {"limits.file_size_bytes", "1048576"},
      {"limits.open_files", "64"},
      {"limits.disk_bytes", "16777216"},
      {"sandbox.host_uid", "0"},
      {"sandbox.warm_pool", "8"},
      {"kubernetes.kubeconfig", "/home/tester/.kube/team"},
      {"kubernetes.context", "gke_proj_europe-west1_team"},
      {"kubernetes.namespace", "kode-gopher"},
      {"kubernetes.warm_pool", "go-pool"},
      {"kubernetes.router", "127.0.0.1:8080"},
      {"kubernetes.egress_proxy_address", "kode-gopherd-egress:3128"},
      {"kubernetes.egress_proxy_listen", "10.0.0.5:3129"},
      {"kubernetes.claim_timeout_s", "3600"},
      {"kubernetes.lease_s", "60"},
      {"kubernetes.daemon_id", "team-daemon"},
      {"api_policy.read_only", "true"},
      {"api_policy.projects", "proj-a 123456"},
      {"api_policy.buckets", "b-1 logs.example.com"},
  };
  // The team-mode keys ([http], [oauth], [team]) have their own test (test_team_config.cpp).
  std::size_t checked = 0;
  for (const auto& spec : config_key_specs()) {
    if (spec.section == "http" || spec.section == "oauth" || spec.section == "team") continue;
    CAPTURE(spec.full_name());
    ++checked;
    REQUIRE(expected.count(spec.full_name()) == 1);
    CHECK(spec.current(config) == expected.at(spec.full_name()));
  }
  CHECK(checked == expected.size());
}

TEST_CASE("[api_policy] names that are not projects or buckets are errors at their line") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto issues = issues_for(dir, "[api_policy]\nprojects = good-project My_Project\n"
                                      "buckets = ok-bucket x\n");
  REQUIRE(issues.size() >= 2);
  bool project = false, bucket = false;
  for (const auto& issue : issues) {
    project = project || issue.find(":2: api_policy.projects: \"My_Project\" is not a project ID") != std::string::npos;
    bucket = bucket || issue.find("api_policy.buckets: \"x\" is not a bucket name") != std::string::npos;
  }
  CHECK(project);
  CHECK(bucket);
  CHECK(one_issue(dir, "api_policy", "read_only", "yes").find("api_policy.read_only") != std::string::npos);
}

TEST_CASE("section and key names are case-insensitive") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file =
      write_file(dir / "kg.ini", "[Daemon]\nMax_Sessions = 3\n[LIMITS]\nOUTPUT_BYTES = 2048\n");
  const auto loaded = load_config(file);
  CHECK(loaded.warnings.empty());
  CHECK(loaded.config.max_sessions == 3);
  CHECK(loaded.config.limits.output_bytes == 2048);
}

TEST_CASE("integers must be plain decimal within their range") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const std::string prefix = "<file>:2: daemon.max_sessions: must be an integer from 1 to 1024, got ";
  CHECK(one_issue(dir, "daemon", "max_sessions", "0") == prefix + "\"0\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "1025") == prefix + "\"1025\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "12abc") == prefix + "\"12abc\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "-1") == prefix + "\"-1\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "+5") == prefix + "\"+5\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "0x10") == prefix + "\"0x10\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "1 6") == prefix + "\"1 6\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "") == prefix + "\"\"");
  CHECK(one_issue(dir, "daemon", "max_sessions", "18446744073709551616") ==
        prefix + "\"18446744073709551616\"");
  CHECK(one_issue(dir, "limits", "output_bytes", "1023") ==
        "<file>:2: limits.output_bytes: must be an integer from 1024 to 67108864, got \"1023\"");
  CHECK(one_issue(dir, "limits", "run_timeout_ms", "99") ==
        "<file>:2: limits.run_timeout_ms: must be an integer from 100 to 3600000, got \"99\"");
  CHECK(one_issue(dir, "limits", "run_timeout_ms", "600001") ==
        "<file>:2: limits.run_timeout_ms: 600001 is above limits.max_run_timeout_ms (600000), "
        "the longest a call may ask for: raise max_run_timeout_ms or lower run_timeout_ms");
  CHECK(issues_for(dir, "[limits]\nrun_timeout_ms = 900000\nmax_run_timeout_ms = 900000\n")
            .empty());
  CHECK(one_issue(dir, "limits", "build_timeout_ms", "3600001") ==
        "<file>:2: limits.build_timeout_ms: must be an integer from 1000 to 3600000, got "
        "\"3600001\"");
  CHECK(one_issue(dir, "daemon", "max_queued", "4097") ==
        "<file>:2: daemon.max_queued: must be an integer from 0 to 4096, got \"4097\"");
  CHECK(one_issue(dir, "daemon", "queue_timeout_ms", "99") ==
        "<file>:2: daemon.queue_timeout_ms: must be an integer from 100 to 3600000, got \"99\"");
  // The tidy module cache needs room for at least a module or two; 0 does not turn it off.
  CHECK(one_issue(dir, "cache", "tidy_modules_max_bytes", "0") ==
        "<file>:2: cache.tidy_modules_max_bytes: must be an integer from 1048576 to 1099511627776, "
        "got \"0\"");
  CHECK(one_issue(dir, "daemon", "max_request_bytes", "1073741825") ==
        "<file>:2: daemon.max_request_bytes: must be an integer from 1024 to 1073741824, got "
        "\"1073741825\"");
}

TEST_CASE("choices must be one of the allowed values, exactly") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  CHECK(one_issue(dir, "daemon", "log_level", "verbose") ==
        "<file>:2: daemon.log_level: must be one of error, warn, info, debug, got \"verbose\"");
  CHECK(one_issue(dir, "sandbox", "provider", "k8s") ==
        "<file>:2: sandbox.provider: must be one of local, kubernetes, got \"k8s\"");
}

TEST_CASE("allowed hosts and ports are comma-separated lists of valid items") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  CHECK(one_issue(dir, "sandbox", "allowed_hosts", "*.googleapis.com, http://x.example") ==
        "<file>:2: sandbox.allowed_hosts: must be ','-separated host names, IP addresses and "
        "`*.suffix` patterns, got \"*.googleapis.com, http://x.example\" (\"http://x.example\" is "
        "not a host name: it contains ':' (only letters, digits, '-' and '.' are allowed))");
  // The proxy's own reading (net::HostPattern): what it would never match is refused here.
  CHECK(one_issue(dir, "sandbox", "allowed_hosts", "a_b.example").ends_with(
        "(\"a_b.example\" is not a host name: it contains '_' (only letters, digits, '-' and '.' "
        "are allowed))"));
  CHECK(one_issue(dir, "sandbox", "allowed_hosts", "*.8").ends_with(
        "(\"*.8\" is not a \"*.suffix\" pattern: \"8\" is not a host name: it is an IPv4 address "
        "in a form only resolvers read)"));
  CHECK(one_issue(dir, "sandbox", "allowed_hosts", "a.example,,b.example") ==
        "<file>:2: sandbox.allowed_hosts: must be ','-separated host names, IP addresses and "
        "`*.suffix` patterns, got \"a.example,,b.example\" (an empty item)");
  CHECK(one_issue(dir, "sandbox", "allowed_ports", "443, 70000") ==
        "<file>:2: sandbox.allowed_ports: must be ','-separated ports from 1 to 65535, got \"443, "
        "70000\" (\"70000\")");
  CHECK(one_issue(dir, "sandbox", "network", "open") ==
        "<file>:2: sandbox.network: must be one of auto, none, allowlist, egress, host, got \"open\"");
  CHECK(one_kubernetes_issue(dir, "namespace", "Kode_Gopher") ==
        "<file>:4: kubernetes.namespace: must be a Kubernetes name (lowercase letters, digits and "
        "'-', at most 63 characters), got \"Kode_Gopher\"");
  CHECK(one_kubernetes_issue(dir, "daemon_id", "-team") ==
        "<file>:4: kubernetes.daemon_id: must be a Kubernetes name (lowercase letters, digits and "
        "'-', at most 63 characters), got \"-team\"");
  CHECK(one_kubernetes_issue(dir, "router", "sandbox-router-svc") ==
        "<file>:4: kubernetes.router: must be host:port (or http://host:port), got "
        "\"sandbox-router-svc\" (no port)");
  CHECK(one_kubernetes_issue(dir, "router", "https://router:8443") ==
        "<file>:4: kubernetes.router: must be host:port (or http://host:port), got "
        "\"https://router:8443\" (the sandbox-router speaks plain HTTP)");
  CHECK(one_kubernetes_issue(dir, "router", "router:0") ==
        "<file>:4: kubernetes.router: must be host:port (or http://host:port), got \"router:0\" "
        "(the port must be from 1 to 65535)");
  CHECK(one_kubernetes_issue(dir, "lease_s", "30") ==
        "<file>:4: kubernetes.lease_s: must be an integer from 60 to 86400, got \"30\"");
}

TEST_CASE("[kubernetes] keys without provider = kubernetes are flagged as ignored") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "[kubernetes]\nwarm_pool = go-pool\n");
  const auto loaded = load_config(file);
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].to_string() ==
        file + ":2: kubernetes.warm_pool: ignored: the [kubernetes] keys are read only with "
               "[sandbox] provider = kubernetes");
  const auto with_provider =
      write_file(dir / "kg2.ini", "[sandbox]\nprovider = kubernetes\n[kubernetes]\nwarm_pool = go-pool\n");
  CHECK(load_config(with_provider).warnings.empty());
  CHECK(load_config(with_provider).config.kubernetes_warm_pool == "go-pool");
}

TEST_CASE("providers that are not built are refused, naming what is") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  CHECK(one_issue(dir, "sandbox", "provider", "docker") ==
        "<file>:2: sandbox.provider: must be one of local, kubernetes, got \"docker\"");
  // They are errors, so the daemon does not start with them.
  const auto file = write_file(dir / "kg.ini", "[sandbox]\nprovider = docker\n");
  CHECK_THROWS_AS(load_config(file), ConfigError);
}

TEST_CASE("runtime names are read as they are: the loaded plugins decide (runtime_names_check)") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "[runtime]\ndefault = tinygo\nauto_order =\n");
  const auto loaded = load_config(file);
  CHECK(loaded.config.default_runtime == "tinygo");
  CHECK(loaded.config.auto_order.empty());
  CHECK(loaded.config.key_lines.at("runtime.default") == 2);
  CHECK(loaded.config.key_lines.at("runtime.auto_order") == 3);
  // Only what cannot be a runtime name at all is refused on reading.
  CHECK(one_issue(dir, "runtime", "default", "compiled go") ==
        "<file>:2: runtime.default: must be a runtime name the loaded plugins offer, or auto "
        "(`kode-gopher plugins` lists them), got \"compiled go\"");
  CHECK(one_issue(dir, "runtime", "auto_order", "yaegi, go/build") ==
        "<file>:2: runtime.auto_order: must be runtime names the loaded plugins offer, separated "
        "by spaces or commas, got \"yaegi, go/build\" (\"go/build\" is not a runtime name)");
}

TEST_CASE("yaegi and auto are runtimes a config may choose") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  for (const char* runtime : {"compiled-go", "yaegi", "auto"}) {
    const auto file = write_file(dir / "kg.ini", std::string("[runtime]\ndefault = ") + runtime + "\n");
    CHECK(load_config(file).config.default_runtime == runtime);
  }
}

TEST_CASE("paths must be absolute") {
  TempDir dir;
  auto env = isolated_env("/home/tester");
  CHECK(one_issue(dir, "daemon", "state_dir", "state") ==
        "<file>:2: daemon.state_dir: must be an absolute path, got \"state\"");
  CHECK(one_issue(dir, "sandbox", "go_root", "~tester/go") ==
        "<file>:2: sandbox.go_root: must be an absolute path, got \"~tester/go\"");
  CHECK(one_issue(dir, "daemon", "socket", "run/d.sock") ==
        "<file>:2: daemon.socket: must be an absolute path of at most 107 bytes, got "
        "\"run/d.sock\"");
  const std::string long_socket = "/" + std::string(107, 's');
  CHECK(one_issue(dir, "daemon", "socket", long_socket) ==
        "<file>:2: daemon.socket: must be an absolute path of at most 107 bytes, got \"" +
            long_socket + "\" (108 bytes)");
  CHECK(issues_for(dir, "[daemon]\nsocket = /" + std::string(106, 's') + "\n").empty());
  CHECK(one_issue(dir, "sandbox", "bwrap", "bin/bwrap") ==
        "<file>:2: sandbox.bwrap: must be an absolute path or a program name looked up in PATH, "
        "got \"bin/bwrap\"");
  CHECK(one_issue(dir, "sandbox", "bwrap", "") ==
        "<file>:2: sandbox.bwrap: must be an absolute path or a program name looked up in PATH, "
        "got \"\"");
  CHECK(one_issue(dir, "plugins", "dirs", "/opt/kg:plugins") ==
        "<file>:2: plugins.dirs: must be ':'-separated absolute paths, got \"/opt/kg:plugins\" "
        "(\"plugins\" is not absolute)");
  CHECK(one_issue(dir, "plugins", "dirs", "plugins") ==
        "<file>:2: plugins.dirs: must be ':'-separated absolute paths, got \"plugins\"");
}

TEST_CASE("~/ expands to HOME, and needs HOME") {
  TempDir dir;
  auto env = isolated_env("/home/tester");
  const auto file = write_file(dir / "kg.ini",
                               "[daemon]\nstate_dir = ~/state\n[plugins]\ndirs = ~/a:~\n"
                               "[sandbox]\nbwrap = ~/bin/bwrap\ngo_root = ~\n");
  const auto config = load_config(file).config;
  CHECK(config.state_dir == "/home/tester/state");
  CHECK(config.socket_path == "/home/tester/state/daemon.sock");
  CHECK(config.plugin_dirs == std::vector<std::string>{"/home/tester/a", "/home/tester"});
  CHECK(config.bwrap_path == "/home/tester/bin/bwrap");
  CHECK(config.go_root == "/home/tester");

  ScopedEnv no_home{{"HOME", std::nullopt}};
  CHECK(one_issue(dir, "sandbox", "go_root", "~/go") ==
        "<file>:2: sandbox.go_root: must be an absolute path, got \"~/go\" (\"~/\" needs HOME, "
        "which is not set)");
}

TEST_CASE("an empty path value means the default") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "[daemon]\nstate_dir =\nsocket =\n[plugins]\ndirs =\n"
                               "[sandbox]\ngo_root =\nserver_binary =\n");
  const auto loaded = load_config(file);
  CHECK(loaded.warnings.empty());
  CHECK(loaded.config.state_dir == expected_default_state_dir(dir.path() + "/.local/state/kode-gopher"));
  CHECK(loaded.config.socket_path ==
        expected_default_state_dir(dir.path() + "/.local/state/kode-gopher") + "/daemon.sock");
  CHECK(loaded.config.plugin_dirs.empty());
  CHECK(loaded.config.go_root == "");
  CHECK(loaded.config.sandbox_server_binary == "");
}

TEST_CASE("load_config reports every error at once, one per line") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "[limits]\noutput_bytes = 1\n"
                               "[daemon]\nmax_sessions = 0\nlog_level = loud\n");
  try {
    load_config(file);
    FAIL("load_config accepted bad values");
  } catch (const ConfigError& error) {
    const std::string expected = "Invalid configuration in " + file + ":\n  " + file +
                                 ":5: daemon.log_level: must be one of error, warn, info, debug, "
                                 "got \"loud\"\n  " +
                                 file +
                                 ":4: daemon.max_sessions: must be an integer from 1 to 1024, "
                                 "got \"0\"\n  " +
                                 file +
                                 ":2: limits.output_bytes: must be an integer from 1024 to "
                                 "67108864, got \"1\"";
    CHECK(std::string(error.what()) == expected);
    REQUIRE(error.issues().size() == 3);
    CHECK(error.issues()[0].key == "daemon.log_level");
    CHECK(error.issues()[0].file == file);
    CHECK(error.issues()[0].line == 5);
    CHECK(error.issues()[0].message == "must be one of error, warn, info, debug, got \"loud\"");
    CHECK(error.issues()[2].key == "limits.output_bytes");
  }
}

}  // namespace
}  // namespace kg::config
