// Command kcluster runs the k8s test cluster of tests/k8s: the supervisor that starts etcd,
// kube-apiserver, kube-controller-manager, the agent-sandbox controller, the sandbox-router and
// the kubelet player, the kubelet player itself, the manifest applier, and the end-to-end check.
package main

import (
	"fmt"
	"os"
)

var commands = map[string]func(args []string) error{
	"free-ports": freePortsCommand,
	"supervise":  superviseCommand,
	"kubelet":    kubeletCommand,
	"apply":      applyCommand,
	"e2e":        e2eCommand,
	"credential": credentialCommand,
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: kcluster free-ports|supervise|kubelet|apply|e2e|credential [flags]; -h after one for its flags")
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "kcluster %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
