package main

import (
	"flag"
	"fmt"
	"net"
	"strconv"
)

// freePortsCommand prints N distinct TCP ports free on 127.0.0.1, one a line. They are held open
// until all N are chosen, so they differ; another process may still take one before its user
// binds it, which start-cluster.sh reports as that component failing to start.
func freePortsCommand(args []string) error {
	fs := flag.NewFlagSet("free-ports", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want exactly one argument, how many ports")
	}
	n, err := strconv.Atoi(fs.Arg(0))
	if err != nil || n < 1 || n > 100 {
		return fmt.Errorf("port count %q: want a number from 1 to 100", fs.Arg(0))
	}
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("finding a free loopback port: %w", err)
		}
		listeners = append(listeners, l)
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
	}
	return nil
}
