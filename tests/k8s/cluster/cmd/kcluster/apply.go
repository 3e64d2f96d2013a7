package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// applyCommand server-side-applies the objects of YAML files (several documents each allowed), and
// waits until every CustomResourceDefinition among them is Established.
func applyCommand(args []string) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || fs.NArg() == 0 {
		return errors.New("usage: kcluster apply --kubeconfig FILE manifest.yaml...")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig %s: %w", *kubeconfig, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return applyFiles(ctx, config, fs.Args())
}

func applyFiles(ctx context.Context, config *rest.Config, files []string) error {
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("making a dynamic client: %w", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return fmt.Errorf("making a discovery client: %w", err)
	}
	cached := memory.NewMemCacheClient(disco)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(cached)
	var crds []string
	for _, file := range files {
		objects, err := readManifests(file)
		if err != nil {
			return err
		}
		for _, obj := range objects {
			gvk := obj.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				// A kind from a CRD applied just before: forget the cached discovery once.
				cached.Invalidate()
				if mapping, err = mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
					return fmt.Errorf("%s: %s %s: the server does not know this kind: %w", file, gvk, obj.GetName(), err)
				}
			}
			body, err := obj.MarshalJSON()
			if err != nil {
				return fmt.Errorf("%s: encoding %s %s: %w", file, gvk.Kind, obj.GetName(), err)
			}
			var resource dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
			if mapping.Scope.Name() == "namespace" {
				namespace := obj.GetNamespace()
				if namespace == "" {
					namespace = "default"
				}
				resource = dyn.Resource(mapping.Resource).Namespace(namespace)
			}
			force := true
			if _, err := resource.Patch(ctx, obj.GetName(), types.ApplyPatchType, body,
				metav1.PatchOptions{FieldManager: "kcluster", Force: &force}); err != nil {
				return fmt.Errorf("%s: applying %s %s: %w", file, gvk.Kind, obj.GetName(), err)
			}
			if gvk.Kind == "CustomResourceDefinition" {
				crds = append(crds, obj.GetName())
			}
		}
	}
	return waitEstablished(ctx, dyn, crds)
}

func readManifests(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading manifest %s: %w", file, err)
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objects []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objects, nil
			}
			return nil, fmt.Errorf("parsing manifest %s: %w", file, err)
		}
		if len(obj.Object) != 0 {
			objects = append(objects, obj)
		}
	}
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func waitEstablished(ctx context.Context, dyn dynamic.Interface, names []string) error {
	for _, name := range names {
		for {
			crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
			if err == nil && conditionTrue(crd, "Established") {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("CustomResourceDefinition %s not Established in time (last error: %v)", name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// conditionTrue says whether obj's status.conditions has the given type with status "True".
func conditionTrue(obj *unstructured.Unstructured, conditionType string) bool {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if ok && m["type"] == conditionType && m["status"] == "True" {
			return true
		}
	}
	return false
}
