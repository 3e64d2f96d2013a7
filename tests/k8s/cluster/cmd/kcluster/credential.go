package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// credentialCommand is the client-go exec credential plugin of <state-dir>/kubeconfig-exec: it
// prints an ExecCredential carrying the cluster's admin token, and appends one line to
// logs/exec-credential.log per call, so a test can see that its client ran the plugin.
func credentialCommand(args []string) error {
	fs := flag.NewFlagSet("credential", flag.ContinueOnError)
	stateDir := fs.String("state-dir", "", "the cluster's state folder (required)")
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
	if f, err := os.OpenFile(filepath.Join(*stateDir, "logs", "exec-credential.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
		fmt.Fprintf(f, "%s issued the token (KUBERNETES_EXEC_INFO %d bytes)\n", time.Now().Format(time.RFC3339Nano), len(os.Getenv("KUBERNETES_EXEC_INFO")))
		f.Close()
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1",
		"kind":       "ExecCredential",
		"status": map[string]any{
			"token":               env["KG_K8S_TOKEN"],
			"expirationTimestamp": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		},
	})
}
