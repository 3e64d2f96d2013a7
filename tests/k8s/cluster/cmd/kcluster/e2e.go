package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	sandboxes        = schema.GroupVersionResource{Group: "agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxes"}
	sandboxClaims    = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxclaims"}
	sandboxTemplates = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxtemplates"}
	sandboxWarmPools = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxwarmpools"}
	namespaces       = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	pods             = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// e2eCommand proves the running cluster end to end, the way the kubernetes provider will use it:
// a template and a warm pool in a fresh namespace, a claim that gets a Ready sandbox, GET / and
// POST /execute through the router into that sandbox's kode-gopher-sandbox, the claim's deletion
// taking the pod and the server with it; then what a claim reports against a missing warm pool, a
// warm pool whose template is missing, a template whose pods never schedule, and an expiring
// lease. --show-json prints the objects it saw, as README.md quotes them.
func e2eCommand(args []string) error {
	fs := flag.NewFlagSet("e2e", flag.ContinueOnError)
	stateDir := fs.String("state-dir", "", "the cluster's state folder (required)")
	showJSON := fs.Bool("show-json", false, "print the claims and sandboxes seen")
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
	config, err := clientcmd.BuildConfigFromFlags("", env["KG_K8S_KUBECONFIG"])
	if err != nil {
		return fmt.Errorf("loading %s: %w", env["KG_K8S_KUBECONFIG"], err)
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t := &e2e{ctx: ctx, dyn: dyn, router: env["KG_K8S_ROUTER_URL"], showJSON: *showJSON,
		ns: "kg-e2e-" + rand.String(5), began: time.Now()}
	defer t.cleanUp()
	return t.run()
}

type e2e struct {
	ctx      context.Context
	dyn      dynamic.Interface
	router   string
	ns       string
	showJSON bool
	began    time.Time
}

func (t *e2e) step(format string, args ...any) {
	fmt.Printf("[%6.2fs] %s\n", time.Since(t.began).Seconds(), fmt.Sprintf(format, args...))
}

func (t *e2e) show(label string, obj *unstructured.Unstructured) {
	if !t.showJSON {
		return
	}
	o := obj.DeepCopy()
	unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	unstructured.RemoveNestedField(o.Object, "spec", "podTemplate")
	data, _ := json.MarshalIndent(o.Object, "", "  ")
	fmt.Printf("--- %s:\n%s\n", label, data)
}

func (t *e2e) run() error {
	if err := t.create(namespaces, "", obj("v1", "Namespace", "", t.ns, nil)); err != nil {
		return err
	}
	t.step("namespace %s", t.ns)
	if err := t.makePool("kode-gopher-pool", "kode-gopher-sandbox", nil); err != nil {
		return err
	}
	if _, err := t.waitFor(sandboxWarmPools, "kode-gopher-pool", 60*time.Second, "readyReplicas 1", func(o *unstructured.Unstructured) bool {
		n, _, _ := unstructured.NestedInt64(o.Object, "status", "readyReplicas")
		return n == 1
	}); err != nil {
		return err
	}
	t.step("warm pool kode-gopher-pool has 1 ready sandbox")

	claim, err := t.claim("kode-gopher-pool", nil)
	if err != nil {
		return err
	}
	claimObj, err := t.waitFor(sandboxClaims, claim, 60*time.Second, "status.sandbox.name set", func(o *unstructured.Unstructured) bool {
		name, _, _ := unstructured.NestedString(o.Object, "status", "sandbox", "name")
		return name != ""
	})
	if err != nil {
		return err
	}
	sandbox, _, _ := unstructured.NestedString(claimObj.Object, "status", "sandbox", "name")
	t.step("claim %s bound to sandbox %s", claim, sandbox)
	sandboxObj, err := t.waitFor(sandboxes, sandbox, 60*time.Second, "condition Ready=True", func(o *unstructured.Unstructured) bool {
		return conditionTrue(o, "Ready")
	})
	if err != nil {
		return err
	}
	t.step("sandbox %s Ready", sandbox)
	claimObj, _ = t.get(sandboxClaims, claim)
	t.show("claim bound and ready", claimObj)
	t.show("its sandbox", sandboxObj)
	podIPs, _, _ := unstructured.NestedStringSlice(sandboxObj.Object, "status", "podIPs")
	if len(podIPs) != 1 {
		return fmt.Errorf("sandbox %s status.podIPs = %v, want one address", sandbox, podIPs)
	}

	status, body, err := t.viaRouter(sandbox, http.MethodGet, "/", "")
	if err != nil || status != http.StatusOK || !strings.Contains(body, `"kode-gopher-sandbox"`) {
		return fmt.Errorf("GET / through the router: HTTP %d %q %v", status, body, err)
	}
	t.step("router GET / -> %d %s", status, body)
	status, body, err = t.viaRouter(sandbox, http.MethodPost, "/execute", `{"command":"echo hi"}`)
	var result struct {
		Stdout   string `json:"stdout"`
		ExitCode int    `json:"exit_code"`
	}
	if err != nil || status != http.StatusOK || json.Unmarshal([]byte(body), &result) != nil ||
		result.Stdout != "hi\n" || result.ExitCode != 0 {
		return fmt.Errorf("POST /execute echo hi through the router: HTTP %d %q %v", status, body, err)
	}
	t.step("router POST /execute {\"command\":\"echo hi\"} -> %d %s", status, body)

	if err := t.dyn.Resource(sandboxClaims).Namespace(t.ns).Delete(t.ctx, claim, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting claim %s: %w", claim, err)
	}
	for _, gone := range []struct {
		what schema.GroupVersionResource
		name string
	}{{sandboxClaims, claim}, {sandboxes, sandbox}, {pods, sandbox}} {
		if err := t.waitGone(gone.what, gone.name, 30*time.Second); err != nil {
			return err
		}
	}
	if err := waitRefused(net.JoinHostPort(podIPs[0], "8888"), 10*time.Second); err != nil {
		return err
	}
	t.step("claim deleted: sandbox and pod %s gone, nothing listens at %s:8888 any more", sandbox, podIPs[0])
	status, body, _ = t.viaRouter(sandbox, http.MethodGet, "/", "")
	t.step("router GET / for the deleted sandbox -> %d %s", status, body)

	return t.failures()
}

// failures records what claims report when they cannot get a sandbox, and a lease expiring.
func (t *e2e) failures() error {
	missingPool, err := t.claim("no-such-pool", nil)
	if err != nil {
		return err
	}
	if err := t.makePool("pool-without-template", "no-such-template", nil); err != nil {
		return err
	}
	missingTemplate, err := t.claim("pool-without-template", nil)
	if err != nil {
		return err
	}
	for _, c := range []struct{ claim, reason string }{{missingPool, "WarmPoolNotFound"}, {missingTemplate, "TemplateNotFound"}} {
		o, err := t.waitFor(sandboxClaims, c.claim, 30*time.Second, "Ready False "+c.reason, func(o *unstructured.Unstructured) bool {
			return conditionReason(o, "Ready") == c.reason
		})
		if err != nil {
			return err
		}
		t.step("claim %s: Ready=False reason %s", c.claim, c.reason)
		t.show("claim with reason "+c.reason, o)
	}

	// A template whose pods no node fits: the pool's sandboxes stay Pending and a claim never
	// becomes Ready.
	if err := t.makePool("unschedulable-pool", "unschedulable", map[string]any{"kode-gopher.test/no-such-node": "true"}); err != nil {
		return err
	}
	pending, err := t.claim("unschedulable-pool", nil)
	if err != nil {
		return err
	}
	time.Sleep(5 * time.Second)
	o, err := t.get(sandboxClaims, pending)
	if err != nil {
		return err
	}
	if conditionTrue(o, "Ready") {
		return fmt.Errorf("claim %s on unschedulable pods became Ready", pending)
	}
	t.step("claim %s on unschedulable pods after 5 s: Ready reason %q", pending, conditionReason(o, "Ready"))
	t.show("claim whose sandbox never schedules, after 5 s", o)
	if name, _, _ := unstructured.NestedString(o.Object, "status", "sandbox", "name"); name != "" {
		if sb, err := t.get(sandboxes, name); err == nil {
			t.show("its sandbox", sb)
		}
	}

	expiry := time.Now().Add(6 * time.Second).UTC().Truncate(time.Second)
	lifecycle := map[string]any{"shutdownTime": expiry.Format(time.RFC3339), "shutdownPolicy": "Retain"}
	leased, err := t.claim("kode-gopher-pool", lifecycle)
	if err != nil {
		return err
	}
	o, err = t.waitFor(sandboxClaims, leased, 30*time.Second, "Ready False ClaimExpired", func(o *unstructured.Unstructured) bool {
		return conditionReason(o, "Ready") == "ClaimExpired"
	})
	if err != nil {
		return err
	}
	t.step("claim %s with shutdownTime %s, policy Retain: Ready=False reason ClaimExpired", leased, expiry.Format(time.RFC3339))
	t.show("claim after its shutdownTime (Retain)", o)

	lifecycle = map[string]any{"shutdownTime": time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339), "shutdownPolicy": "Delete"}
	deleted, err := t.claim("kode-gopher-pool", lifecycle)
	if err != nil {
		return err
	}
	if err := t.waitGone(sandboxClaims, deleted, 30*time.Second); err != nil {
		return err
	}
	t.step("claim %s with shutdownPolicy Delete: deleted at its shutdownTime", deleted)
	t.step("all checks passed")
	return nil
}

func (t *e2e) makePool(pool, template string, nodeSelector map[string]any) error {
	podSpec := map[string]any{
		"automountServiceAccountToken": false,
		"containers": []any{map[string]any{
			"name": "sandbox", "image": "kode-gopher-sandbox:test",
			"ports":          []any{map[string]any{"containerPort": int64(8888)}},
			"readinessProbe": map[string]any{"httpGet": map[string]any{"path": "/", "port": int64(8888)}},
		}},
	}
	if nodeSelector != nil {
		podSpec["nodeSelector"] = nodeSelector
	}
	if template != "no-such-template" {
		if err := t.create(sandboxTemplates, t.ns, obj("extensions.agents.x-k8s.io/v1beta1", "SandboxTemplate", t.ns, template,
			map[string]any{"podTemplate": map[string]any{"spec": podSpec}})); err != nil {
			return err
		}
	}
	return t.create(sandboxWarmPools, t.ns, obj("extensions.agents.x-k8s.io/v1beta1", "SandboxWarmPool", t.ns, pool,
		map[string]any{"replicas": int64(1), "sandboxTemplateRef": map[string]any{"name": template}}))
}

// claim creates a SandboxClaim as the provider does and returns its generated name.
func (t *e2e) claim(pool string, lifecycle map[string]any) (string, error) {
	spec := map[string]any{"warmPoolRef": map[string]any{"name": pool}}
	if lifecycle != nil {
		spec["lifecycle"] = lifecycle
	}
	o := obj("extensions.agents.x-k8s.io/v1beta1", "SandboxClaim", t.ns, "", spec)
	o.SetGenerateName("sandbox-claim-")
	o.SetLabels(map[string]string{"agents.x-k8s.io/created-by": "kode-gopher"})
	made, err := t.dyn.Resource(sandboxClaims).Namespace(t.ns).Create(t.ctx, o, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("creating a claim on warm pool %s: %w", pool, err)
	}
	t.step("created claim %s on warm pool %s", made.GetName(), pool)
	return made.GetName(), nil
}

func obj(apiVersion, kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name}}}
	if namespace != "" {
		o.SetNamespace(namespace)
	}
	if spec != nil {
		o.Object["spec"] = spec
	}
	return o
}

func (t *e2e) create(what schema.GroupVersionResource, namespace string, o *unstructured.Unstructured) error {
	var err error
	if namespace == "" {
		_, err = t.dyn.Resource(what).Create(t.ctx, o, metav1.CreateOptions{})
	} else {
		_, err = t.dyn.Resource(what).Namespace(namespace).Create(t.ctx, o, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
	}
	return nil
}

func (t *e2e) get(what schema.GroupVersionResource, name string) (*unstructured.Unstructured, error) {
	return t.dyn.Resource(what).Namespace(t.ns).Get(t.ctx, name, metav1.GetOptions{})
}

func (t *e2e) waitFor(what schema.GroupVersionResource, name string, timeout time.Duration, want string,
	done func(*unstructured.Unstructured) bool) (*unstructured.Unstructured, error) {
	deadline := time.Now().Add(timeout)
	for {
		o, err := t.get(what, name)
		if err == nil && done(o) {
			return o, nil
		}
		if time.Now().After(deadline) {
			seen := ""
			if o != nil {
				status, _ := json.Marshal(o.Object["status"])
				seen = string(status)
			}
			return nil, fmt.Errorf("%s %s: no %s within %s (last error %v, status %s)", what.Resource, name, want, timeout, err, seen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (t *e2e) waitGone(what schema.GroupVersionResource, name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		_, err := t.get(what, name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s %s still there %s after its claim's deletion (last error %v)", what.Resource, name, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (t *e2e) viaRouter(sandbox, method, path, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(t.ctx, method, t.router+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("X-Sandbox-ID", sandbox)
	req.Header.Set("X-Sandbox-Namespace", t.ns)
	req.Header.Set("X-Sandbox-Port", "8888")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(data)), err
}

func (t *e2e) cleanUp() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = t.dyn.Resource(namespaces).Delete(ctx, t.ns, metav1.DeleteOptions{})
}

// waitRefused waits until nothing accepts connections at address.
func waitRefused(address string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := net.DialTimeout("tcp", address, time.Second)
		if err != nil {
			return nil
		}
		conn.Close()
		if time.Now().After(deadline) {
			return fmt.Errorf("something still listens at %s %s after its pod was deleted", address, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// conditionReason is the reason of obj's status condition of the given type ("" if none).
func conditionReason(obj *unstructured.Unstructured, conditionType string) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == conditionType {
			reason, _ := m["reason"].(string)
			return reason
		}
	}
	return ""
}
