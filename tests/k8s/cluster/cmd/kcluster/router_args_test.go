package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const routerManifest = `apiVersion: v1
kind: Namespace
metadata:
  name: kode-gopher
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sandbox-router
  namespace: kode-gopher
spec:
  selector: {matchLabels: {app: r}}
  template:
    metadata: {labels: {app: r}}
    spec:
      serviceAccountName: sandbox-router
      containers:
      - name: sandbox-router
        image: r
        args: ["--http-bind-address=:8080", "--proxy-timeout=600s", "--cache-namespace=$(POD_NAMESPACE)", "--x=$(LITERAL)"]
        env:
        - name: POD_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
        - name: LITERAL
          value: v
`

func writeManifest(t *testing.T, text string) string {
	file := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestRouterArgsComeFromTheDeploymentWithLoopbackAddresses(t *testing.T) {
	facts, err := routerArgsFromManifests(writeManifest(t, routerManifest),
		map[string]string{"http-bind-address": "127.0.0.1:1", "metrics-bind-address": "127.0.0.1:2"},
		[]string{"--allow-loopback-pod-ip"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--http-bind-address=127.0.0.1:1", "--proxy-timeout=600s", "--cache-namespace=kode-gopher",
		"--x=v", "--metrics-bind-address=127.0.0.1:2", "--allow-loopback-pod-ip"}
	if facts.image != "r" {
		t.Fatalf("image %q, want the container's, r", facts.image)
	}
	if facts.namespace != "kode-gopher" || facts.serviceAccount != "sandbox-router" {
		t.Fatalf("runs as %s/%s, want the Deployment's kode-gopher/sandbox-router", facts.namespace, facts.serviceAccount)
	}
	if !reflect.DeepEqual(facts.args, want) {
		t.Fatalf("args %q, want %q", facts.args, want)
	}
}

func TestRouterArgsRefuseAnUnknownEnvReference(t *testing.T) {
	_, err := routerArgsFromManifests(writeManifest(t, strings.Replace(routerManifest, "$(LITERAL)", "$(NOPE)", 1)), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "$(NOPE)") {
		t.Fatalf("error %v, want one naming $(NOPE)", err)
	}
}

func TestRouterArgsNeedTheDeployment(t *testing.T) {
	_, err := routerArgsFromManifests(writeManifest(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no Deployment sandbox-router") {
		t.Fatalf("error %v, want one saying the Deployment is missing", err)
	}
}
