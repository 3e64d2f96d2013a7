// Command kode-gopher-cacheprog is a GOCACHEPROG for kode-gopher sandboxes: a Go build cache
// made of a read-only base layer, prewarmed once on the host, and a writable per-sandbox upper
// layer, both in the go command's native GOCACHE layout. See README.md.
//
//	GOCACHEPROG="kode-gopher-cacheprog -base /opt/kode-gopher/gocache-base -upper $HOME/.cache/kode-gopher-upper"
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

const programName = "kode-gopher-cacheprog"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run returns the exit status: 0 after "close", 1 when the protocol or the store fails, 2 for
// bad flags.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(programName, flag.ContinueOnError)
	flags.SetOutput(stderr)
	base := flags.String("base", "", "read-only lower layer: a directory filled by `GOCACHE=DIR go build` (may be missing or empty)")
	upper := flags.String("upper", "", "writable upper layer in the same layout, created if missing (required)")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "usage: GOCACHEPROG=\"%s -base DIR -upper DIR\" go build ...\n", programName)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *upper == "" || flags.NArg() != 0 {
		fmt.Fprintf(stderr, "%s: give -upper DIR (and optionally -base DIR) and no other arguments\n", programName)
		flags.Usage()
		return 2
	}
	store, err := OpenLayeredStore(*base, *upper)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", programName, err)
		return 1
	}
	if err := Serve(stdin, stdout, store); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", programName, err)
		return 1
	}
	return 0
}
