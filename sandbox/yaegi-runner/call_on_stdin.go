package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// A prestarted runner (docs/sandbox-api.md, "Prestarted commands"): the sandbox server starts
// `kode-gopher-yaegi --call-on-stdin` ahead of the call, with none of the call's environment,
// so the process's start (the Go runtime, the standard library's symbol tables) is paid while
// no call waits. The call then arrives on stdin, a pipe only the server holds: each
// "NAME=value" of the call's environment, an empty entry, then the runner's arguments, every
// entry NUL-terminated, then end of file. From there the runner does what it does when started
// with those arguments and that environment; the token never is in /proc/self/environ at all.
// One process serves one call.

const callOnStdinFlag = "--call-on-stdin"

// receiveCall waits for the call on stdin, makes its environment the process's, puts stdin on
// /dev/null (what every command's program reads) and returns the call's arguments. While it
// waits the process is not dumpable, so no process of the sandbox's user could read or write
// its memory or descriptors even if one ran beside it (the server runs none).
func receiveCall(stdin *os.File) ([]string, error) {
	setDumpable(false)
	defer setDumpable(true)
	data, err := io.ReadAll(stdin)
	if err != nil {
		return nil, fmt.Errorf("reading the call on stdin: %w", err)
	}
	environment, arguments, err := parseCall(data)
	if err != nil {
		return nil, err
	}
	os.Clearenv()
	for _, entry := range environment {
		name, value, _ := bytes.Cut([]byte(entry), []byte("="))
		if err := os.Setenv(string(name), string(value)); err != nil {
			return nil, fmt.Errorf("setting the call's variable %s: %w", name, err)
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, fmt.Errorf("opening %s for the program's stdin: %w", os.DevNull, err)
	}
	defer null.Close()
	if err := syscall.Dup3(int(null.Fd()), int(stdin.Fd()), 0); err != nil {
		return nil, fmt.Errorf("putting the program's stdin on %s: %w", os.DevNull, err)
	}
	applyCallGC()
	return arguments, nil
}

// applyCallGC sets the collector as the call's GOGC says, as the Go runtime does for a process
// started with that environment (unset or not a number: 100; "off"): a prestarted process read
// its own GOGC when it started, before the call existed (the plugin starts the cloud runner
// with the collector off: plugins/yaegi/runner_command.hpp).
func applyCallGC() {
	percent := 100
	switch value := os.Getenv("GOGC"); {
	case value == "off":
		percent = -1
	default:
		if n, err := strconv.Atoi(value); err == nil {
			percent = n
		}
	}
	debug.SetGCPercent(percent)
}

// parseCall splits the message: environment entries up to the empty entry, then arguments.
func parseCall(data []byte) (environment, arguments []string, err error) {
	if len(data) == 0 {
		return nil, nil, fmt.Errorf("no call on stdin: %s is for a sandbox server that hands the call over (an /execute with \"prestart\"); run the runner with its arguments instead", callOnStdinFlag)
	}
	if data[len(data)-1] != 0 {
		return nil, nil, fmt.Errorf("the call on stdin does not end with a NUL: it was cut short")
	}
	entries := bytes.Split(data[:len(data)-1], []byte{0})
	inEnvironment := true
	for _, entry := range entries {
		switch {
		case inEnvironment && len(entry) == 0:
			inEnvironment = false
		case inEnvironment:
			if bytes.IndexByte(entry, '=') <= 0 {
				return nil, nil, fmt.Errorf("the call on stdin has the environment entry %q, which is not NAME=value", entry)
			}
			environment = append(environment, string(entry))
		default:
			arguments = append(arguments, string(entry))
		}
	}
	if inEnvironment {
		return nil, nil, fmt.Errorf("the call on stdin has no end of its environment (an empty entry)")
	}
	return environment, arguments, nil
}

func setDumpable(dumpable bool) {
	value := uintptr(0)
	if dumpable {
		value = 1
	}
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, value, 0)
}
