// A plain Go program: kode-gopher builds it with `go build` inside a sandbox and runs it there.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	host, _ := os.Hostname()
	fmt.Printf("Hello from %s, built with %s on %s/%s\n", host, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
