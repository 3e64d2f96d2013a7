package main

// The sandbox-router's arguments taken from the project's own rendered manifests (the Deployment
// sandbox-router in manifests/base), so the k8s suite runs the router as a cluster would: the
// same timeouts, retries, cache and cache namespace. Only what a loopback cluster of plain
// processes cannot share with a cluster is changed, and the log says so:
//   --http-bind-address, --health-probe-bind-address, --metrics-bind-address  free loopback
//       ports (every process here shares one network namespace, so :8080 cannot be everyone's)
//   --kubeconfig  added (there is no in-cluster service account mount); it holds a token of the
//       Deployment's own serviceAccountName (router_account.go), so only the manifests' RBAC
//       for it is open to the router
//   --allow-loopback-pod-ip  added (the kubelet player's pod IPs are 127.0.0.N)
// $(VAR) references are expanded from the container's env as a kubelet does: literal values and
// the fieldRef metadata.namespace (the Deployment's namespace); any other reference is an error.

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const routerDeployment, routerContainer = "sandbox-router", "sandbox-router"

var envReference = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// routerDeploymentFacts: what the test cluster takes from the router's Deployment.
type routerDeploymentFacts struct {
	args           []string // the container's args, rewritten (rewriteRouterArgs)
	image          string   // the container's image
	namespace      string   // the Deployment's
	serviceAccount string   // spec.template.spec.serviceAccountName ("default" when unset)
}

// routerArgsFromManifests reads the router container's args from the rendered manifests in file
// and returns them with the loopback replacements (in `replaced`, by flag name) and additions,
// with the container's image and the namespace and ServiceAccount it runs as.
func routerArgsFromManifests(file string, replaced map[string]string, added []string) (routerDeploymentFacts, error) {
	var none routerDeploymentFacts
	objects, err := readManifests(file)
	if err != nil {
		return none, err
	}
	for _, obj := range objects {
		if obj.GetKind() != "Deployment" || obj.GetName() != routerDeployment {
			continue
		}
		var deployment appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &deployment); err != nil {
			return none, fmt.Errorf("reading Deployment %s in %s: %w", routerDeployment, file, err)
		}
		for _, container := range deployment.Spec.Template.Spec.Containers {
			if container.Name != routerContainer {
				continue
			}
			if len(container.Command) != 0 {
				return none, fmt.Errorf("Deployment %s in %s sets command %q; the test cluster runs the router binary itself, so only args are supported",
					routerDeployment, file, container.Command)
			}
			values := map[string]string{}
			for _, env := range container.Env {
				switch {
				case env.ValueFrom == nil:
					values[env.Name] = env.Value
				case env.ValueFrom.FieldRef != nil && env.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
					values[env.Name] = deployment.Namespace
				}
			}
			args, err := rewriteRouterArgs(container.Args, values, replaced, added)
			account := deployment.Spec.Template.Spec.ServiceAccountName
			if account == "" {
				account = "default"
			}
			return routerDeploymentFacts{args: args, image: container.Image,
				namespace: deployment.Namespace, serviceAccount: account}, err
		}
		return none, fmt.Errorf("Deployment %s in %s has no container %s", routerDeployment, file, routerContainer)
	}
	return none, fmt.Errorf("%s has no Deployment %s (render manifests/overlays/daemon into it)", file, routerDeployment)
}

func rewriteRouterArgs(args []string, values, replaced map[string]string, added []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, arg := range args {
		var missing []string
		arg = envReference.ReplaceAllStringFunc(arg, func(ref string) string {
			name := envReference.FindStringSubmatch(ref)[1]
			value, ok := values[name]
			if !ok {
				missing = append(missing, name)
			}
			return value
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("router argument %q refers to $(%s), which the container's env does not give (a literal value or fieldRef metadata.namespace)",
				arg, strings.Join(missing, "), $("))
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if value, ok := replaced[name]; ok {
			if !hasValue {
				return nil, fmt.Errorf("router argument %q: write it as --%s=VALUE so the test cluster can replace it", arg, name)
			}
			arg = "--" + name + "=" + value
			seen[name] = true
		}
		out = append(out, arg)
	}
	names := make([]string, 0, len(replaced))
	for name := range replaced {
		names = append(names, name)
	}
	sort.Strings(names) // the same command line every time
	for _, name := range names {
		if !seen[name] {
			out = append(out, "--"+name+"="+replaced[name])
		}
	}
	return append(out, added...), nil
}
