// Package main is kode-gopher's curated lockfile: it blank-imports every package that is
// prewarmed in each sandbox's Go build cache (docs/contracts.md §4). Its go.mod/go.sum pin the
// versions a snippet gets when it brings no go.mod of its own. Regenerate the list from
// curated_packages.txt; never edit one without the other.
package main

import (
	_ "cloud.google.com/go/bigquery"
	_ "cloud.google.com/go/compute/apiv1"
	_ "cloud.google.com/go/container/apiv1"
	_ "cloud.google.com/go/logging/logadmin"
	_ "cloud.google.com/go/monitoring/apiv3/v2"
	_ "cloud.google.com/go/secretmanager/apiv1"
	_ "cloud.google.com/go/storage"
	_ "google.golang.org/api/option"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/client-go/dynamic"
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/tools/clientcmd"
)

func main() {}
