// Command kode-gopher-yaegi runs a Go program or wrapped snippet, laid out in a folder exactly as
// the compiled-go plugin lays it out for go build, with the yaegi interpreter instead of the
// compiler. See README.md for the contract with the yaegi plugin.
//
//	KG_YAEGI_TOKEN=<hex> kode-gopher-yaegi [--auto] <program folder>
//	kode-gopher-yaegi --call-on-stdin   (prestarted: call_on_stdin.go)
package main

import (
	"errors"
	"fmt"
	"os"
	"testing/fstest"
	"time"
)

func main() {
	arguments := os.Args[1:]
	if len(arguments) == 1 && arguments[0] == callOnStdinFlag {
		// The program sees an os.Args like a compiled binary's (see below), in the prepared
		// interpreter too.
		os.Args = os.Args[:1]
		setDumpable(false) // from the start: receiveCall makes it dumpable again once the call is in
		prepared = prepareInterpreter()
		var err error
		if arguments, err = receiveCall(os.Stdin); err != nil {
			messenger{}.internal(err.Error())
			os.Exit(exitInternal)
		}
	}
	token := os.Getenv(tokenVariable)
	os.Unsetenv(tokenVariable)
	scrubInitialEnvironment(tokenVariable)
	say := messenger{token: token}

	auto, dir, err := parseArguments(arguments)
	if err != nil {
		say.internal(err.Error())
		os.Exit(exitInternal)
	}
	program, err := loadProgram(dir)
	if err != nil {
		say.internal(err.Error())
		os.Exit(exitInternal)
	}
	if needsCloudRunner(program) {
		err := execCloudRunner(arguments, token)
		say.internal(err.Error())
		os.Exit(exitInternal)
	}
	// The program sees an os.Args like a compiled binary's: its path, no runner arguments.
	os.Args = os.Args[:1]
	os.Exit(runProgram(program, auto, say))
}

func parseArguments(args []string) (auto bool, dir string, err error) {
	for _, a := range args {
		switch {
		case a == "--auto" || a == "-auto":
			auto = true
		case len(a) > 0 && a[0] == '-':
			return false, "", fmt.Errorf("unknown option %q; usage: kode-gopher-yaegi [--auto] <program folder>", a)
		case dir != "":
			return false, "", fmt.Errorf("more than one program folder (%q, %q); usage: kode-gopher-yaegi [--auto] <program folder>", dir, a)
		default:
			dir = a
		}
	}
	if dir == "" {
		return false, "", fmt.Errorf("no program folder; usage: kode-gopher-yaegi [--auto] <program folder>")
	}
	return auto, dir, nil
}

// runProgram returns the process's exit code; a program that calls os.Exit ends the process
// itself.
func runProgram(program *program, auto bool, say messenger) int {
	dir := program.dir
	var err error
	// --auto: the static check first; "accepted" is said once the interpreter has compiled the
	// program too, so that a program gets exactly one of accepted and declined.
	accept := func() {}
	if auto {
		verdict := checkProgram(program)
		if !verdict.accepted {
			say.declined(verdict.reason)
			return exitDeclined
		}
		accept = func() { say.accepted(verdict.reason) }
	}

	start := time.Now()
	if !auto {
		if rejected := compilerRejections(program); len(rejected) > 0 {
			say.compileError(rejected)
			return exitCompileError
		}
	}
	trace := &panicTrace{}
	if prepared != nil {
		trace = prepared.trace // the one the prepared interpreter reports to
	}
	entryName, rewritten := "run", fstest.MapFS(nil)
	if !program.wrapped {
		rewritten, entryName, err = program.renameMain()
		if err != nil {
			say.compileError([]diagnostic{{Message: err.Error()}})
			return exitCompileError
		}
		trace.mainAlias = entryName
	}
	i, err := newInterpreter(dir, rewritten, trace)
	if err != nil {
		say.internal(err.Error())
		return exitInternal
	}
	// Compiles without running package initialization: no code of the program runs before
	// `started` (patches/0004-compile-without-running-init.patch).
	if err := compileProgram(i); err != nil {
		var crash interpreterCrash
		if errors.As(err, &crash) {
			if auto {
				say.declined("the interpreter cannot compile this program (" + crash.Error() + ")")
				return exitDeclined
			}
			say.limitation(crash.Error())
			return exitLimitation
		}
		if auto {
			say.declined("the interpreter cannot compile this program (" + firstDiagnostic(err) + "); the compiler will give the authoritative diagnostics")
			return exitDeclined
		}
		say.compileError(diagnosticsOf(err))
		return exitCompileError
	}
	entry, err := entryFunction(i, entryName)
	if err != nil {
		say.limitation(err.Error())
		return exitLimitation
	}
	if program.wrapped {
		run, err := snippetRun(entry)
		if err != nil {
			if auto {
				say.declined(err.Error())
				return exitDeclined
			}
			say.compileError([]diagnostic{program.runDiagnostic(err.Error())})
			return exitCompileError
		}
		accept()
		say.compiled(time.Since(start).Microseconds())
		if code, ok := startProgram(i, dir, trace, say); !ok {
			return code
		}
		return runWrapped(dir, run, trace, say)
	}
	main, ok := entry.Interface().(func())
	if !ok {
		say.limitation("the interpreter gave main as a " + entry.Type().String())
		return exitLimitation
	}
	accept()
	say.compiled(time.Since(start).Microseconds())
	if code, ok := startProgram(i, dir, trace, say); !ok {
		return code
	}
	return runVerbatim(dir, main, trace, say)
}

func firstLine(text string) string {
	for i, c := range text {
		if c == '\n' {
			return text[:i]
		}
	}
	return text
}

// firstDiagnostic renders the interpreter's first complaint as "main.go:11: message".
func firstDiagnostic(err error) string {
	d := diagnosticsOf(err)
	if len(d) == 0 {
		return firstLine(err.Error())
	}
	if d[0].File == "" {
		return d[0].Message
	}
	return fmt.Sprintf("%s:%d: %s", d[0].File, d[0].Line, d[0].Message)
}
