// Command etcd is the etcd server, built from the pinned go.etcd.io/etcd/server/v3 module: the
// same entry point as etcd's own main package, whose root module is not published for this release.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
