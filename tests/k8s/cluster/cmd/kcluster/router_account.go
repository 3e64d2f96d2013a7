package main

// The router signs in as its Deployment's own ServiceAccount (manifests/base/router-rbac.yaml
// grants it get/list/watch on pods in its namespace), not as a cluster admin, so the k8s suite
// exercises the shipped RBAC: a router the Role does not suffice for fails its start ("pod cache
// failed initial sync"), and every claim test goes through it. A kubelet would mount a projected
// token of that account; here a TokenRequest makes one (as `kubectl create token` does), written
// into a kubeconfig the router reads with --kubeconfig.

import (
	"context"
	"fmt"
	"os"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// routerTokenLifetime outlasts any test run (a projected token would be refreshed instead).
const routerTokenLifetime = 24 * time.Hour

// writeServiceAccountKubeconfig asks the API server (as the admin of `config`) for a token of
// ServiceAccount namespace/account and writes a kubeconfig with it to path: the API server at
// server, trusted through the CA in caFile, the account's namespace as the context's.
func writeServiceAccountKubeconfig(ctx context.Context, config *rest.Config, namespace, account, server, caFile, path string) error {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("making a client for the TokenRequest: %w", err)
	}
	seconds := int64(routerTokenLifetime / time.Second)
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	var answer *authenticationv1.TokenRequest
	// The account was applied just before; allow the API server a moment if it lags.
	for attempt := 0; ; attempt++ {
		answer, err = client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, account, request, metav1.CreateOptions{})
		if err == nil || attempt == 20 || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("a token of ServiceAccount %s/%s (TokenRequest): %w", namespace, account, err)
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("reading the cluster's CA: %w", err)
	}
	user := "system:serviceaccount:" + namespace + ":" + account
	kubeconfig := clientcmdapi.NewConfig()
	kubeconfig.Clusters["kcluster"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	kubeconfig.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: answer.Status.Token}
	kubeconfig.Contexts[account] = &clientcmdapi.Context{Cluster: "kcluster", AuthInfo: user, Namespace: namespace}
	kubeconfig.CurrentContext = account
	if err := clientcmd.WriteToFile(*kubeconfig, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}
