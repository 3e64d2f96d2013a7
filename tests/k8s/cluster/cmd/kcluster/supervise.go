package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// superviseCommand starts the cluster described by <state-dir>/env (written by start-cluster.sh),
// waits until every part is healthy, writes <state-dir>/ready (or <state-dir>/failed with the
// reason and exits), then keeps it running until SIGTERM/SIGINT, until the process --parent-pid
// names exits, or until one part exits on its own; then it stops everything, last started first.
func superviseCommand(args []string) error {
	fs := flag.NewFlagSet("supervise", flag.ContinueOnError)
	stateDir := fs.String("state-dir", "", "the cluster's state folder (required)")
	parentPID := fs.Int("parent-pid", 0, "stop the cluster when this process exits (0: never)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *stateDir == "" {
		return errors.New("--state-dir is required")
	}
	env, err := readEnvFile(filepath.Join(*stateDir, "env"))
	if err != nil {
		return err
	}
	log.SetPrefix("supervisor: ")
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the kcluster binary, which plays the kubelet: %w", err)
	}
	s := &supervisor{env: env, stateDir: *stateDir, self: self}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	parentGone, err := watchParent(*parentPID)
	if err != nil {
		return err
	}
	startErr := s.start(ctx)
	if startErr != nil {
		s.stopAll()
		_ = os.WriteFile(filepath.Join(*stateDir, "failed"), []byte(startErr.Error()+"\n"), 0o644)
		return startErr
	}
	if err := os.WriteFile(filepath.Join(*stateDir, "ready"), []byte("ready\n"), 0o644); err != nil {
		s.stopAll()
		return fmt.Errorf("writing the ready file: %w", err)
	}
	log.Printf("cluster ready")
	exited := make(chan *child, len(s.children))
	for _, c := range s.children {
		go func() { <-c.exited; exited <- c }()
	}
	var reason error
	select {
	case <-ctx.Done():
		log.Printf("stopping: signalled")
	case <-parentGone:
		log.Printf("stopping: parent process %d exited", *parentPID)
	case c := <-exited:
		reason = fmt.Errorf("%s exited on its own (%v)\n%s", c.name, c.err, logTail(c.logPath, 30))
		log.Printf("stopping: %v", reason)
		_ = os.WriteFile(filepath.Join(*stateDir, "failed"), []byte(reason.Error()+"\n"), 0o644)
	}
	_ = os.Remove(filepath.Join(*stateDir, "ready"))
	s.stopAll()
	log.Printf("stopped")
	return reason
}

type supervisor struct {
	env      map[string]string
	stateDir string
	self     string // the kcluster binary, which also plays the kubelet
	children []*child
}

func (s *supervisor) path(name string) string { return filepath.Join(s.stateDir, name) }
func (s *supervisor) bin(name string) string  { return filepath.Join(s.env["KG_K8S_BIN_DIR"], name) }

func (s *supervisor) run(name string, argv ...string) (*child, error) {
	return s.runWithEnv(name, nil, argv...)
}

func (s *supervisor) runWithEnv(name string, env []string, argv ...string) (*child, error) {
	c, err := startChild(name, s.path(filepath.Join("logs", name+".log")), argv, env)
	if err != nil {
		return nil, err
	}
	s.children = append(s.children, c)
	return c, nil
}

func (s *supervisor) stopAll() {
	for i := len(s.children) - 1; i >= 0; i-- {
		s.children[i].stop(5 * time.Second)
	}
}

func (s *supervisor) start(ctx context.Context) error {
	began := time.Now()
	e := s.env
	if err := os.MkdirAll(s.path("logs"), 0o755); err != nil {
		return fmt.Errorf("making the logs folder: %w", err)
	}
	plain := &http.Client{Timeout: 2 * time.Second}
	selfSigned := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		// kube-controller-manager's health port serves a certificate it made itself.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	apiClient, err := httpClientTrusting(e["KG_K8S_CA_FILE"])
	if err != nil {
		return err
	}

	etcd, err := s.run("etcd", s.bin("etcd"), "--name", "kcluster", "--data-dir", s.path("etcd"),
		"--listen-client-urls", e["KG_K8S_ETCD_URL"], "--advertise-client-urls", e["KG_K8S_ETCD_URL"],
		"--listen-peer-urls", e["KG_K8S_ETCD_PEER_URL"], "--initial-advertise-peer-urls", e["KG_K8S_ETCD_PEER_URL"],
		"--initial-cluster", "kcluster="+e["KG_K8S_ETCD_PEER_URL"], "--unsafe-no-fsync", "--log-level", "warn")
	if err != nil {
		return err
	}
	if err := waitHTTP(etcd, plain, e["KG_K8S_ETCD_URL"]+"/health", "", `"health":"true"`, 20*time.Second); err != nil {
		return err
	}
	log.Printf("etcd healthy after %s", time.Since(began).Round(time.Millisecond))

	pki := s.path("pki")
	apiserver, err := s.run("kube-apiserver", s.bin("kube-apiserver"),
		"--etcd-servers", e["KG_K8S_ETCD_URL"],
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", e["KG_K8S_API_PORT"],
		"--tls-cert-file", pki+"/apiserver.crt", "--tls-private-key-file", pki+"/apiserver.key",
		"--client-ca-file", pki+"/ca.crt", "--token-auth-file", pki+"/tokens.csv",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", pki+"/sa.pub", "--service-account-signing-key-file", pki+"/sa.key",
		"--service-cluster-ip-range", "10.96.0.0/16", "--authorization-mode", "RBAC",
		"--cert-dir", s.path("apiserver-certs"), "--enable-priority-and-fairness=false")
	if err != nil {
		return err
	}
	if err := waitHTTP(apiserver, apiClient, e["KG_K8S_API_URL"]+"/readyz", e["KG_K8S_TOKEN"], "ok", 60*time.Second); err != nil {
		return err
	}
	log.Printf("kube-apiserver ready after %s", time.Since(began).Round(time.Millisecond))

	config, err := clientcmd.BuildConfigFromFlags("", e["KG_K8S_KUBECONFIG"])
	if err != nil {
		return fmt.Errorf("loading %s: %w", e["KG_K8S_KUBECONFIG"], err)
	}
	crds, err := filepath.Glob(filepath.Join(e["KG_K8S_CRD_DIR"], "*.yaml"))
	if err != nil || len(crds) == 0 {
		return fmt.Errorf("no agent-sandbox CRDs in %s (did build-cluster-tools.sh run?)", e["KG_K8S_CRD_DIR"])
	}
	applyCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := applyFiles(applyCtx, config, crds); err != nil {
		return fmt.Errorf("applying the agent-sandbox CRDs: %w", err)
	}
	log.Printf("%d agent-sandbox CRDs established after %s", len(crds), time.Since(began).Round(time.Millisecond))

	kubeconfig := e["KG_K8S_KUBECONFIG"]
	kcm, err := s.run("kube-controller-manager", s.bin("kube-controller-manager"),
		"--kubeconfig", kubeconfig, "--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig,
		"--bind-address", "127.0.0.1", "--secure-port", e["KG_K8S_KCM_PORT"], "--cert-dir", s.path("kcm-certs"),
		"--controllers", "garbage-collector-controller,serviceaccount-controller,serviceaccount-token-controller,namespace-controller",
		"--service-account-private-key-file", pki+"/sa.key", "--root-ca-file", pki+"/ca.crt",
		"--leader-elect=false", "--use-service-account-credentials=false")
	if err != nil {
		return err
	}
	controller, err := s.run("agent-sandbox-controller", s.bin("agent-sandbox-controller"),
		"--kubeconfig", kubeconfig, "--extensions", "--leader-elect=false",
		"--metrics-bind-address", e["KG_K8S_CONTROLLER_METRICS_ADDR"],
		"--health-probe-bind-address", e["KG_K8S_CONTROLLER_PROBE_ADDR"])
	if err != nil {
		return err
	}
	kubelet, err := s.run("kubelet-player", s.self, "kubelet", "--kubeconfig", kubeconfig,
		"--pods-dir", s.path("pods"), "--sandbox-server", e["KG_K8S_SANDBOX_SERVER"],
		"--ready-file", s.path("kubelet.ready"))
	if err != nil {
		return err
	}
	routerArgv, routerEnv, err := s.routerCommand(ctx, config)
	if err != nil {
		return err
	}
	router, err := s.runWithEnv("sandbox-router", routerEnv, routerArgv...)
	if err != nil {
		return err
	}
	if err := waitHTTP(kcm, selfSigned, "https://127.0.0.1:"+e["KG_K8S_KCM_PORT"]+"/healthz", "", "ok", 30*time.Second); err != nil {
		return err
	}
	if err := waitHTTP(controller, plain, "http://"+e["KG_K8S_CONTROLLER_PROBE_ADDR"]+"/readyz", "", "", 30*time.Second); err != nil {
		return err
	}
	if err := waitFile(kubelet, s.path("kubelet.ready"), 30*time.Second); err != nil {
		return err
	}
	if err := waitHTTP(router, plain, "http://"+e["KG_K8S_ROUTER_PROBE_ADDR"]+"/readyz", "", "", 30*time.Second); err != nil {
		return err
	}
	log.Printf("controller manager, agent-sandbox controller, kubelet player and router ready after %s",
		time.Since(began).Round(time.Millisecond))
	return nil
}

// routerCommand: with KG_K8S_ROUTER_MANIFESTS (start-cluster.sh --router-manifests), those
// rendered manifests are applied (an install, as `kubectl apply` of them), and the router runs
// with its Deployment's own arguments (router_args.go), signed in as the Deployment's
// ServiceAccount (router_account.go), and with KG_K8S_ROUTER_COMMAND too, run by that command from
// the Deployment's image (KG_IMAGE, as the kubelet player runs pods); without, the built router
// as the cluster admin over every namespace (the e2e and by-hand namespaces differ from the
// manifests' one).
func (s *supervisor) routerCommand(ctx context.Context, admin *rest.Config) ([]string, []string, error) {
	e := s.env
	loopback := map[string]string{"http-bind-address": e["KG_K8S_ROUTER_ADDR"],
		"metrics-bind-address": e["KG_K8S_ROUTER_METRICS_ADDR"], "health-probe-bind-address": e["KG_K8S_ROUTER_PROBE_ADDR"]}
	file := e["KG_K8S_ROUTER_MANIFESTS"]
	if file == "" {
		added := []string{"--kubeconfig=" + e["KG_K8S_KUBECONFIG"], "--allow-loopback-pod-ip"}
		args, err := rewriteRouterArgs([]string{"--cache-enabled"}, nil, loopback, added)
		return append([]string{s.bin("sandbox-router")}, args...), nil, err
	}
	kubeconfig := s.path("kubeconfig-router")
	router, err := routerArgsFromManifests(file, loopback, []string{"--kubeconfig=" + kubeconfig, "--allow-loopback-pod-ip"})
	if err != nil {
		return nil, nil, fmt.Errorf("the router's arguments from the manifests: %w", err)
	}
	applyCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := applyFiles(applyCtx, admin, []string{file}); err != nil {
		return nil, nil, fmt.Errorf("applying the manifests %s: %w", file, err)
	}
	if err := writeServiceAccountKubeconfig(applyCtx, admin, router.namespace, router.serviceAccount,
		e["KG_K8S_API_URL"], e["KG_K8S_CA_FILE"], kubeconfig); err != nil {
		return nil, nil, fmt.Errorf("the router's kubeconfig: %w", err)
	}
	log.Printf("applied %s; sandbox-router signs in as ServiceAccount %s/%s (%s)", file, router.namespace, router.serviceAccount, kubeconfig)
	log.Printf("sandbox-router arguments from %s (bind addresses replaced by loopback ones, --kubeconfig and --allow-loopback-pod-ip added): %s",
		file, strings.Join(router.args, " "))
	if command := strings.Fields(e["KG_K8S_ROUTER_COMMAND"]); len(command) > 0 {
		log.Printf("sandbox-router runs from its image %s", router.image)
		return append(command, router.args...), []string{"KG_IMAGE=" + router.image}, nil
	}
	return append([]string{s.bin("sandbox-router")}, router.args...), nil, nil
}

func waitFile(c *child, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if !c.running() {
			return fmt.Errorf("%s exited (%v) before writing %s\n%s", c.name, c.err, path, logTail(c.logPath, 30))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not write %s within %s\n%s", c.name, path, timeout, logTail(c.logPath, 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// watchParent returns a channel closed when process pid exits (never, for pid 0). It holds a
// pidfd, so a new process reusing the number is not mistaken for the parent.
func watchParent(pid int) (<-chan struct{}, error) {
	gone := make(chan struct{})
	if pid == 0 {
		return gone, nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("watching parent process %d: %w", pid, err)
	}
	go func() {
		defer close(gone)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err == nil || !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return gone, nil
}

// readEnvFile reads KEY=VALUE lines (no quoting; # comments), as start-cluster.sh writes them.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's env file: %w", err)
	}
	defer f.Close()
	env := map[string]string{}
	scanner := bufio.NewScanner(f)
	for line := 1; scanner.Scan(); line++ {
		text := strings.TrimSpace(scanner.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, value, ok := strings.Cut(text, "=")
		if !ok {
			return nil, fmt.Errorf("%s line %d: want KEY=VALUE, got %q", path, line, text)
		}
		env[key] = value
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	for _, key := range []string{"KG_K8S_BIN_DIR", "KG_K8S_ETCD_URL", "KG_K8S_ETCD_PEER_URL", "KG_K8S_API_URL",
		"KG_K8S_API_PORT", "KG_K8S_KCM_PORT", "KG_K8S_CA_FILE", "KG_K8S_TOKEN", "KG_K8S_KUBECONFIG", "KG_K8S_CRD_DIR",
		"KG_K8S_CONTROLLER_METRICS_ADDR", "KG_K8S_CONTROLLER_PROBE_ADDR", "KG_K8S_ROUTER_ADDR",
		"KG_K8S_ROUTER_METRICS_ADDR", "KG_K8S_ROUTER_PROBE_ADDR", "KG_K8S_SANDBOX_SERVER"} {
		if env[key] == "" {
			return nil, fmt.Errorf("%s lacks %s", path, key)
		}
	}
	if _, err := strconv.Atoi(env["KG_K8S_API_PORT"]); err != nil {
		return nil, fmt.Errorf("%s: KG_K8S_API_PORT %q is not a port", path, env["KG_K8S_API_PORT"])
	}
	return env, nil
}
