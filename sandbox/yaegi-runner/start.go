package main

import "github.com/traefik/yaegi/interp"

// startProgram says `started`, the runner's last word before the program's own code runs, then
// runs package initialization (global variables and init functions, imported packages first),
// as a compiled binary does before main. Everything the runner says before `started` is its
// verdict on the call (accepted, declined, compile_error, …); after it, a program that found the
// token could write any line, so the plugin takes no verdict from there (docs/security.md).
// ok is false when initialization ended the run (a panic): code is then the exit code.
func startProgram(i *interp.Interpreter, dir string, trace *panicTrace, say messenger) (code int, ok bool) {
	say.started()
	defer func() {
		if recovered := recover(); recovered != nil {
			code, ok = uncaughtPanic(dir, recovered, trace, say), false
		}
	}()
	i.RunInit()
	return 0, true
}
