#include "instance.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include "api_context.hpp"
#include "api_server.hpp"
#include "base_cache.hpp"
#include "binary_cache.hpp"
#include "binary_cache_host_service.hpp"
#include "curated_packages.hpp"
#include "go_host_folders.hpp"
#include "module_tidier.hpp"
#include "module_tidy_host_service.hpp"
#include "tidy_module_cache.hpp"
#include "build_paths.hpp"
#include "daemon_host_services.hpp"
#include "error_chain.hpp"
#include "install_layout.hpp"
#include "load_all_plugins.hpp"
#include "plugin_config_check.hpp"
#include "sealed_credentials.hpp"
#include "kubernetes_sandbox_provider.hpp"
#include "local_sandbox_provider.hpp"
#include "plugin_loader.hpp"
#include "plugin_registry.hpp"
#include "session_manager.hpp"
#include "staged_sandbox_files.hpp"
#include "state_dir_lock.hpp"
#include "default_daemon_id.hpp"
#include "team_mode.hpp"
#include "runtime_names_check.hpp"
#include "team_settings.hpp"
#include "store/store.hpp"

namespace kg {
namespace fs = std::filesystem;
namespace {

// A host_port config value (already validated) as host and port, IPv6 brackets dropped.
std::pair<std::string, std::uint16_t> split_host_port(const std::string& text) {
  const auto colon = text.rfind(':');
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, static_cast<std::uint16_t>(std::stoul(text.substr(colon + 1)))};
}

// [kubernetes] as the provider takes it; the router's host:port split, the daemon id defaulted.
sandbox::KubernetesProviderOptions kubernetes_provider_options(const config::DaemonConfig& config) {
  sandbox::KubernetesProviderOptions options;
  options.kubeconfig = config.kubernetes_kubeconfig;
  options.context = config.kubernetes_context;
  options.namespace_ = config.kubernetes_namespace;
  if (!config.kubernetes_warm_pool.empty()) options.warm_pool = config.kubernetes_warm_pool;
  if (!config.kubernetes_router.empty()) {
    std::tie(options.router_host, options.router_port) = split_host_port(config.kubernetes_router);
  }
  options.daemon_id = config.kubernetes_daemon_id.empty()
                          ? sandbox::default_daemon_id(config.state_dir)
                          : config.kubernetes_daemon_id;
  options.claim_timeout = std::chrono::seconds(config.kubernetes_claim_timeout_s);
  options.lease = std::chrono::seconds(config.kubernetes_lease_s);
  return options;
}

config::DaemonConfig load(const InstanceOptions& options) {
  auto loaded = config::load_config(options.config_path);
  for (const auto& warning : loaded.warnings) std::cerr << "warning: " << warning.to_string() << "\n";
  if (options.socket_override) loaded.config.socket_path = *options.socket_override;
  if (options.log_level_override) loaded.config.log_level = *options.log_level_override;
  if (options.http_listen_override) {
    config::apply_http_listen(loaded.config, *options.http_listen_override);
  }
  return loaded.config;
}

}  // namespace

struct Instance::Parts {
  std::unique_ptr<StateDirLock> lock;
  InstallLayout layout;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<sandbox::SandboxProvider> provider;
  sandbox::KubernetesSandboxProvider* kubernetes = nullptr;  // provider, when it is that one
  std::unique_ptr<sandbox::BaseCache> base_cache;
  std::unique_ptr<sandbox::BinaryCache> binary_cache;
  std::unique_ptr<sandbox::TidyModuleCache> tidy_modules;  // outlives tidier, which fills it
  std::unique_ptr<sandbox::ModuleTidier> tidier;
  // The Go side's host services over the two above; null when the provider gives no host
  // folders. They outlive the plugins, which hold them.
  std::unique_ptr<sandbox::BinaryCacheHostService> binary_cache_service;
  std::unique_ptr<sandbox::ModuleTidyHostService> tidy_service;
  std::unique_ptr<DaemonHostServices> host;
  std::unique_ptr<plugin_host::PluginRegistry> plugins;
  std::unique_ptr<session::CallCredentials> credentials;
  std::unique_ptr<session::SessionManager> sessions;
  std::unique_ptr<api::ApiContext> api_context;
  std::unique_ptr<api::ApiServer> api_server;
  std::unique_ptr<team::TeamMode> team;  // [http] listen set: MCP over streamable HTTP
};

Instance::Instance(const InstanceOptions& options)
    : config_(load(options)), logger_(parse_log_level(config_.log_level)) {}

Instance::~Instance() {
  if (!parts_) return;
  // Reverse order of start: stop taking requests, stop sandboxes, then the rest.
  if (parts_->team) parts_->team->stop();
  if (parts_->api_server) parts_->api_server->stop_accepting();
  if (parts_->tidier) parts_->tidier->stop();  // a tidy under way fails its call at once
  if (parts_->sessions) parts_->sessions->close_all("daemon stopped");
  if (parts_->api_server) parts_->api_server->wait_for_requests();
  parts_->team.reset();
  parts_->api_server.reset();
  parts_->api_context.reset();
  parts_->sessions.reset();
  parts_->credentials.reset();
  parts_->plugins.reset();  // plugin code stays mapped; only the objects go
  parts_->base_cache.reset();
  parts_->provider.reset();
  parts_->store.reset();
}

void Instance::start_parts() {
  parts_ = std::make_unique<Parts>();
  auto& p = *parts_;
  try {
    fs::create_directories(config_.state_dir);
    // Private, except that a root daemon's sandboxes run as another user (sandbox.host_uid),
    // which must reach the caches bound into them: that user may pass through, never list.
    const bool sandboxes_run_as_another_user = ::geteuid() == 0 && config_.sandbox_host_uid != 0;
    ::chmod(config_.state_dir.c_str(), sandboxes_run_as_another_user ? 0711 : 0700);
    p.lock = std::make_unique<StateDirLock>(config_.state_dir);
  } catch (...) {
    std::throw_with_nested(std::runtime_error("Failed to take the state directory"));
  }
  try {
    p.layout = resolve_install_layout(config_);
  } catch (...) {
    std::throw_with_nested(std::runtime_error("Failed to find the daemon's parts"));
  }
  stage_sandbox_files(p.layout, config_.state_dir + "/sandbox-files");
  try {
    p.store = std::make_unique<store::Store>(config_.state_dir + "/kode-gopher.db");
    // Only the daemon's user reads the record (SQLite gives -wal and -shm the same mode).
    ::chmod((config_.state_dir + "/kode-gopher.db").c_str(), 0600);
    const auto report = p.store->reconcile_after_crash();
    for (const auto& session : report.interrupted_sessions) {
      logger_.log(plugin::LogLevel::warn, "Session " + session.id +
                                              " was open when the daemon stopped; marked interrupted");
    }
    if (report.interrupted_calls > 0) {
      logger_.log(plugin::LogLevel::warn, std::to_string(report.interrupted_calls) +
                                              " call(s) were running when the daemon stopped; "
                                              "marked interrupted");
    }
  } catch (...) {
    std::throw_with_nested(std::runtime_error("Failed to open the database"));
  }
  auto or_default = [&](const std::string& value, const char* name) {
    return value.empty() ? config_.state_dir + "/" + name : value;
  };
  sandbox::LocalSandboxLayout sandbox_layout;
  sandbox_layout.bwrap_path = p.layout.bwrap_path;
  sandbox_layout.server_binary = p.layout.sandbox_server_binary;
  sandbox_layout.cacheprog_binary = p.layout.cacheprog_binary;
  sandbox_layout.fastbuild_binary = p.layout.fastbuild_binary;
  sandbox_layout.yaegi_runner_binary = p.layout.yaegi_runner_binary;
  sandbox_layout.yaegi_cloud_runner_binary = p.layout.yaegi_cloud_runner_binary;
  sandbox_layout.go_root = p.layout.go_root;
  sandbox_layout.base_cache_dir = or_default(config_.base_cache_dir, "gocache-base");
  sandbox_layout.base_modcache_dir = or_default(config_.base_modcache_dir, "gomodcache-base");
  sandbox_layout.lockfile_dir = p.layout.lockfile_dir;
  sandbox_layout.sandboxes_dir = config_.state_dir + "/sandboxes";
  sandbox_layout.share_host_network = config_.sandbox_network == "host";
  sandbox_layout.egress_network = config_.sandbox_network == "egress";
  // auto: the allowlist whenever calls carry credentials (a credential plugin, or team mode's
  // signed-in users' own tokens), so a program's Google client reaches the APIs (and nothing
  // else) with no network option set by hand.
  sandbox_layout.egress_proxy =
      config_.sandbox_network == "allowlist" ||
      (config_.sandbox_network == "auto" &&
       (config_.credentials_plugin != "none" || config::runs_as_signed_in_users(config_)));
  sandbox_layout.disk_bytes = config_.limits.disk_bytes;
  // The folders the Go side fills with each sandbox's owner's cache entries (go_host_folders.hpp).
  sandbox_layout.host_folders = sandbox::go_host_folders();
  p.tidy_modules = std::make_unique<sandbox::TidyModuleCache>(
      config_.state_dir + "/gomodcache-extra", config_.tidy_modules_max_bytes, logger_);
  p.tidier = std::make_unique<sandbox::ModuleTidier>(
      p.layout.go_root + "/bin/go", p.layout.lockfile_dir, sandbox_layout.base_modcache_dir,
      *p.tidy_modules, config_.state_dir + "/tidy", logger_);
  p.binary_cache = std::make_unique<sandbox::BinaryCache>(
      or_default(config_.binary_cache_dir, "bincache"), config_.binary_cache_max_bytes, logger_);
  sandbox::LocalSandboxPolicy sandbox_policy;
  sandbox_policy.memory_bytes = config_.limits.memory_bytes;
  sandbox_policy.pids = config_.limits.pids;
  try {
    sandbox_policy.egress_allowlist = sandbox::EgressAllowlist::parse(
        config_.sandbox_allowed_hosts,
        {config_.sandbox_allowed_ports.begin(), config_.sandbox_allowed_ports.end()});
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("[sandbox] allowed_hosts/allowed_ports: ") + e.what());
  }
  if (sandbox_layout.egress_proxy) {
    try {
      sandbox_policy.egress_tls = std::make_shared<sandbox::EgressTls>(
          config_.state_dir + "/egress-ca", config_.egress_upstream_ca_file);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("Cannot set up the egress proxy's TLS (sealed "
                                           "credentials): ") + e.what());
    }
  }
  sandbox_policy.host_uid = config_.sandbox_host_uid == 0
                                ? std::nullopt
                                : std::optional<uid_t>(config_.sandbox_host_uid);
  sandbox::LocalSandboxProvider* local = nullptr;
  if (config_.sandbox_provider == "kubernetes") {
    try {
      auto options = kubernetes_provider_options(config_);
      if (!config_.kubernetes_egress_proxy_address.empty()) {
        // The pods' egress through the daemon: the same allowlist and TLS as local sandboxes'.
        sandbox::KubernetesEgressOptions egress;
        std::tie(egress.listen.host, egress.listen.port) =
            split_host_port(config_.kubernetes_egress_proxy_listen.empty()
                                ? "0.0.0.0:3128"
                                : config_.kubernetes_egress_proxy_listen);
        egress.address = config_.kubernetes_egress_proxy_address;
        egress.allowlist = sandbox_policy.egress_allowlist;
        try {
          egress.tls = std::make_shared<sandbox::EgressTls>(config_.state_dir + "/egress-ca",
                                                            config_.egress_upstream_ca_file);
        } catch (const std::exception& e) {
          throw std::runtime_error(std::string("Cannot set up the egress proxy's TLS (sealed "
                                               "credentials): ") + e.what());
        }
        options.egress = std::move(egress);
      }
      // The image must be built for the toolchain and lockfile the runtime plugins are given.
      options.expected_image = p.layout.go_version + "\nlockfile " +
                               sandbox::lockfile_digest_of(p.layout.lockfile_dir) + "\n";
      auto provider = std::make_unique<sandbox::KubernetesSandboxProvider>(std::move(options), logger_);
      p.kubernetes = provider.get();
      p.provider = std::move(provider);
    } catch (...) {
      std::throw_with_nested(std::runtime_error("Failed to set up Kubernetes sandboxes"));
    }
  } else {
    try {
      auto provider =
          std::make_unique<sandbox::LocalSandboxProvider>(sandbox_layout, logger_, sandbox_policy);
      local = provider.get();
      p.provider = std::move(provider);
    } catch (...) {
      std::throw_with_nested(std::runtime_error("Failed to set up local sandboxes"));
    }
  }
  for (const auto& line : p.provider->isolation_summary()) {
    logger_.log(plugin::LogLevel::info, "Sandbox isolation: " + line);
  }
  if (const int orphans = p.provider->reap_orphans(); orphans > 0) {
    logger_.log(plugin::LogLevel::warn,
                "Removed " + std::to_string(orphans) + " sandbox(es) left by a previous daemon");
  }
  // The binary cache and go mod tidy reach a sandbox through its host folders: said once here
  // when the provider has none, instead of by every sandbox's handle.
  if (p.provider->gives_host_folders()) {
    p.binary_cache_service =
        std::make_unique<sandbox::BinaryCacheHostService>(*p.binary_cache, logger_);
    p.tidy_service = std::make_unique<sandbox::ModuleTidyHostService>(*p.tidier);
  } else {
    logger_.log(plugin::LogLevel::info,
                "No binary cache and no go mod tidy with the " + std::string(p.provider->name()) +
                    " provider: its sandboxes cannot receive host folders (every build runs in "
                    "the sandbox; imports must come from the curated lockfile)");
  }
  // Kubernetes sandboxes bring their own prewarmed build cache (the image carries it).
  if (local == nullptr) return;
  sandbox::BaseCachePaths cache_paths{.go_root = sandbox_layout.go_root,
                                      .lockfile_dir = sandbox_layout.lockfile_dir,
                                      .base_cache_dir = sandbox_layout.base_cache_dir,
                                      .base_modcache_dir = sandbox_layout.base_modcache_dir,
                                      .work_dir = sandbox_layout.sandboxes_dir};
  p.base_cache = std::make_unique<sandbox::BaseCache>(
      std::move(cache_paths),
      [local]() -> std::unique_ptr<sandbox::Sandbox> {
        return local->open_local(sandbox::BaseCacheAccess::writable);
      },
      p.layout.go_version, logger_);
}

std::unique_ptr<session::CallCredentials> Instance::make_call_credentials(
    plugin_host::PluginRegistry& plugins, store::Store& store) {
  const std::string& name = config_.credentials_plugin;
  plugin::CredentialsPlugin* plugin = nullptr;
  std::string reason;
  if (name != "none") {
    plugin = plugins.credentials(name);
    const auto* loaded = plugins.find(name);
    if (loaded == nullptr) {
      reason = "it was not found in the plugin directories, or it failed to start: the daemon's "
               "log at start says which";
    } else if (loaded->kind != plugin::PluginKind::credentials) {
      reason = "it is a " + std::string(plugin_host::to_string(loaded->kind)) + " plugin";
    } else if (plugin == nullptr) {
      reason = loaded->reason;
    }
    if (plugin == nullptr) {
      logger_.log(plugin::LogLevel::warn, "[credentials] plugin = " + name + ", but it is not "
                                          "loaded (" + reason + "); programs run without Google "
                                          "credentials");
    } else {
      logger_.log(plugin::LogLevel::info, "Calls get Google credentials from " + name);
    }
  }
  auto credentials = std::make_unique<session::CallCredentials>(name, plugin, reason, store, logger_);
  credentials->set_sealed_note(
      session::sealed_mode_note(config_.sandbox_provider, config_.sandbox_network,
                                !config_.kubernetes_egress_proxy_address.empty()));
  return credentials;
}

int Instance::prewarm() {
  if (config_.sandbox_provider == "kubernetes") {
    throw std::runtime_error("--prewarm builds the host's Go build cache for local sandboxes; with "
                             "[sandbox] provider = kubernetes the sandbox image carries it "
                             "(sandbox/Dockerfile)");
  }
  start_parts();
  parts_->base_cache->ensure([](std::string_view line) { std::cerr << line << std::endl; });
  if (parts_->base_cache->current()) std::cerr << "Go build cache is current." << std::endl;
  return 0;
}

int Instance::run() {
  // Signals are taken by sigwait() below; every thread started from here inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  start_parts();
  auto& p = *parts_;
  p.host = std::make_unique<DaemonHostServices>(
      logger_, config_.plugin_sections, p.binary_cache_service.get(), p.tidy_service.get(),
      plugin::ToolchainInfo{p.layout.go_version, p.layout.go_root,
                            sandbox::lockfile_digest_of(p.layout.lockfile_dir),
                            sandbox::lockfile_text(p.layout.lockfile_dir, "go.mod"),
                            sandbox::lockfile_text(p.layout.lockfile_dir, "go.sum"),
                            p.layout.yaegi_runner_binary.empty()
                                ? std::string()
                                : std::string(sandbox::kSandboxYaegiRunnerPath),
                            sandbox::kSandboxFastbuildPath, sandbox::kSandboxFastbuildDataPath});
  p.plugins = std::make_unique<plugin_host::PluginRegistry>();
  plugin_host::PluginLoader loader(p.layout.plugin_dirs);
  const auto ready = plugin_host::load_all(loader, *p.plugins, *p.host, logger_);
  // Plugin sections are checked against what the loaded plugins declare (docs/configuration.md).
  for (const auto& issue : config::plugin_section_issues(config_, plugin_sections_of(*p.plugins))) {
    logger_.log(plugin::LogLevel::warn, issue.to_string());
  }
  // A default or auto_order naming a runtime no plugin offers: calls that need it are refused
  // with the list of what is offered; the daemon serves the rest.
  for (const auto& issue : config::runtime_name_issues(config_, p.plugins->runtime_names())) {
    const bool error = issue.severity == config::ConfigIssue::Severity::error;
    logger_.log(error ? plugin::LogLevel::error : plugin::LogLevel::warn, issue.to_string());
  }
  if (ready == 0) {
    logger_.log(plugin::LogLevel::warn, "No runtime plugin is ready; every call will fail. "
                                        "Plugin directories: " + [&] {
                                          std::string dirs;
                                          for (const auto& d : p.layout.plugin_dirs) dirs += d + " ";
                                          return dirs;
                                        }());
  }
  p.credentials = make_call_credentials(*p.plugins, *p.store);
  session::SessionManagerOptions options;
  options.default_runtime = config_.default_runtime;
  options.auto_order = config_.auto_order;
  options.warm_pool = config_.warm_pool;
  options.max_sessions = config_.max_sessions;
  options.max_queued = config_.max_queued;
  options.queue_timeout_ms = config_.queue_timeout_ms;
  options.limits = config_.limits;
  options.api_policy = {config_.api_policy.read_only, config_.api_policy.projects,
                        config_.api_policy.buckets};
  options.curated_packages = sandbox::read_curated_packages(p.layout.lockfile_dir);
  options.call_files_dir = config_.state_dir + "/call-files";
  p.sessions = std::make_unique<session::SessionManager>(
      options, *p.provider, p.base_cache.get(), *p.plugins,
      *p.credentials, *p.store, logger_);
  p.api_context = std::make_unique<api::ApiContext>(api::ApiContext{
      *p.sessions, *p.plugins, *p.credentials, *p.store, logger_, kVersion, config_.socket_path,
      config_.state_dir, config_.max_request_bytes, config_.max_sessions, config_.max_queued,
      std::chrono::steady_clock::now(), std::string(p.provider->name()),
      p.provider->isolation_summary(), p.base_cache.get(), p.provider->warnings(), {},
      p.tidy_modules.get()});
  try {
    p.api_server = std::make_unique<api::ApiServer>(*p.api_context);
  } catch (...) {
    std::throw_with_nested(std::runtime_error("Failed to open the daemon socket"));
  }
  if (!config_.http.listen.empty()) {
    try {
      p.team = std::make_unique<team::TeamMode>(config_, *p.api_context, logger_);
      p.api_context->team = p.team->status();
    } catch (...) {
      std::throw_with_nested(std::runtime_error("Failed to start team mode ([http] listen = " +
                                                config_.http.listen + ")"));
    }
  }
  p.api_server->start();
  if (p.team) p.team->start();
  logger_.log(plugin::LogLevel::info, std::string("kode-gopherd ") + kVersion + " (pid " +
                                          std::to_string(::getpid()) + ") serving on " +
                                          config_.socket_path +
                                          (p.api_server->socket_activated()
                                               ? " (socket from systemd)" : "") +
                                          ", " + p.layout.go_version);
  if (p.base_cache && !p.base_cache->current()) {
    logger_.log(plugin::LogLevel::info, "The Go build cache is not prewarmed yet; the first call "
                                        "will build it (or run `kode-gopherd --prewarm`)");
  }
  int received = 0;
  sigwait(&signals, &received);
  logger_.log(plugin::LogLevel::info, std::string("Received ") + ::strsignal(received) +
                                          "; closing sessions and stopping");
  // A second signal while stopping means "now": what is left is reaped at the next start.
  // (Detached, so it may outlive this Instance: it touches nothing of it.)
  std::thread([signals] {
    int again = 0;
    sigwait(&signals, &again);
    static constexpr char kMessage[] = "kode-gopherd: a second signal; stopping at once\n";
    [[maybe_unused]] const auto wrote = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    std::_Exit(1);
  }).detach();
  // A sandbox start waiting for a claim to bind gives up now, not at [kubernetes] claim_timeout_s.
  if (p.kubernetes != nullptr) p.kubernetes->stop_opening();
  // New connections are refused; queued callers and calls in flight end with shutting_down;
  // every session is closed in the database and its sandbox killed and removed.
  if (p.team) p.team->stop();
  p.api_server->stop_accepting();
  p.tidier->stop();  // a tidy under way fails its call at once (shutting_down)
  p.sessions->close_all("daemon stopped");
  p.api_server->wait_for_requests();
  // Nothing may outlive the daemon, not even a sandbox whose start was under way.
  if (const int left = p.provider->reap_orphans(); left > 0) {
    logger_.log(plugin::LogLevel::warn, "Removed " + std::to_string(left) +
                                            " sandbox folder(s) no session owned any more");
  }
  // A socket unit's file stays: the next connection starts the daemon again.
  if (!p.api_server->socket_activated()) {
    std::error_code ec;
    fs::remove(config_.socket_path, ec);
  }
  logger_.log(plugin::LogLevel::info, "kode-gopherd stopped");
  return 0;
}

}  // namespace kg
