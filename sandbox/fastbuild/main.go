// Command kode-gopher-fastbuild builds a kode-gopher program the way `go build` would, by running
// the compiler once per package of the program and the linker once, against data the prewarm
// computed for the toolchain and the curated lockfile. It serves the common case (the lockfile's
// go.mod, Go files only, default build constraints); anything else it declines with a reason,
// and the caller builds with `go build`. See README.md.
//
//	kode-gopher-fastbuild prepare -flags FLAGS -lockfile-digest HEX -out FILE
//	kode-gopher-fastbuild build -data FILE -go VERSION -lockfile-digest HEX [-memory-limit BYTES] -o BINARY DIR
package main

import (
	"fmt"
	"io"
	"os"
)

const programName = "kode-gopher-fastbuild"

// Exit statuses of build. compileFailed is go build's own status for a compile error.
const (
	exitBuilt         = 0
	exitCompileFailed = 1
	exitUsage         = 2
	exitDeclined      = 3 // not for the fast path: the caller runs go build (reason on stderr)
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "prepare":
		return runPrepare(args[1:], stdout, stderr)
	case "build":
		return runBuild(args[1:], stdout, stderr)
	}
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s prepare -flags FLAGS -lockfile-digest HEX -out FILE   (in the lockfile's folder)\n", programName)
	fmt.Fprintf(w, "       %s build -data FILE -go VERSION -lockfile-digest HEX [-memory-limit BYTES] -o BINARY DIR\n", programName)
}
