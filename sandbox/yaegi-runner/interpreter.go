package main

import (
	"errors"
	"fmt"
	"go/scanner"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unrestricted"
)

// preparedInterpreter is an interpreter made, with its symbol tables loaded, before the program
// is known: a prestarted runner (call_on_stdin.go) makes it while it waits for its call, so the
// call does not pay for it. Its source file system is a slot the call fills.
type preparedInterpreter struct {
	interpreter *interp.Interpreter
	err         error
	source      *programSlot
	trace       *panicTrace
}

var prepared *preparedInterpreter

// prepareInterpreter makes the interpreter ahead; os.Args must already be the program's.
func prepareInterpreter() *preparedInterpreter {
	p := &preparedInterpreter{source: &programSlot{}, trace: &panicTrace{}}
	p.interpreter, p.err = makeInterpreter(p.source, p.trace)
	return p
}

// programSlot serves the program's files once the call has said where they are.
type programSlot struct{ program programFS }

func (s *programSlot) Open(name string) (fs.File, error) { return s.program.Open(name) }
func (s *programSlot) ReadDir(name string) ([]fs.DirEntry, error) {
	return s.program.ReadDir(name)
}

// newInterpreter makes an interpreter for the program in dir with the real process: real
// environment, os.Args, os.Exit and log.Fatal (yaegi's unrestricted mode), real stdio. The
// prepared one when there is one (it is used once).
func newInterpreter(dir string, rewritten fstest.MapFS, trace *panicTrace) (*interp.Interpreter, error) {
	if p := prepared; p != nil && p.trace == trace {
		prepared = nil
		p.source.program = newProgramFS(dir, rewritten)
		return p.interpreter, p.err
	}
	slot := &programSlot{program: newProgramFS(dir, rewritten)}
	return makeInterpreter(slot, trace)
}

func makeInterpreter(source fs.FS, trace *panicTrace) (*interp.Interpreter, error) {
	i := interp.New(interp.Options{
		GoPath:               interpGoPath,
		SourcecodeFilesystem: source,
		Unrestricted:         true,
		Stdout:               os.Stdout,
		Stderr:               trace.filter(os.Stderr),
		Args:                 os.Args,
	})
	// decodeGuardSymbols after the standard library's: it replaces one of its symbols.
	for _, symbols := range []interp.Exports{stdlib.Symbols, unrestricted.Symbols, decodeGuardSymbols()} {
		if err := i.Use(symbols); err != nil {
			return nil, fmt.Errorf("loading the interpreter's symbol tables: %w", err)
		}
	}
	if err := useCuratedSymbols(i); err != nil {
		return nil, err
	}
	return i, nil
}

// compileProgram parses and compiles the entry package and the helper packages it imports
// without running any of their code: neither main nor package initialization, which
// startProgram runs (patches/0004-compile-without-running-init.patch). yaegi's test mode is what
// compiles a main package without running it; programFS keeps _test.go files out.
func compileProgram(i *interp.Interpreter) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = interpreterCrash{fmt.Sprint(r)}
		}
	}()
	return i.EvalTestDeferInit(entryPackagePath)
}

// interpreterCrash: the interpreter panicked while compiling (yaegi reports some unsupported
// constructs that way, e.g. "nil type" for a range over an int).
type interpreterCrash struct{ what string }

func (c interpreterCrash) Error() string {
	return "the interpreter crashed compiling the program: " + c.what
}

// entryFunction returns the entry package's function name (main or run) as a Go value.
func entryFunction(i *interp.Interpreter, name string) (reflect.Value, error) {
	v, err := i.Eval(name)
	if err != nil {
		return v, fmt.Errorf("finding func %s: %w", name, err)
	}
	return v, nil
}

// Diagnostics from the interpreter's errors: "path:line:col: message" per line (go/scanner's
// lists, yaegi's cfg errors), the path mapped back to the program's folder.
var positionedMessage = regexp.MustCompile(`^(.+?\.go):(\d+):(\d+): (.*)$`)

func diagnosticsOf(err error) []diagnostic {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		var out []diagnostic
		for _, e := range list {
			out = append(out, diagnostic{File: programPath(e.Pos.Filename), Line: e.Pos.Line, Col: e.Pos.Column, Message: e.Msg})
		}
		return out
	}
	var out []diagnostic
	for _, line := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
		if m := positionedMessage.FindStringSubmatch(line); m != nil {
			ln, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			out = append(out, diagnostic{File: programPath(m[1]), Line: ln, Col: col, Message: m[4]})
		} else if line != "" {
			out = append(out, diagnostic{Message: line})
		}
	}
	return out
}
