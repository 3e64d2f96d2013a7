package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
)

// panicTrace collects the lines yaegi writes to its stderr for every interpreted frame a panic
// unwinds ("main.go:12:3: panic: main.run(...)"): the runner turns them into the panic's stack
// instead of passing them on, since a compiled program prints nothing for a panic it recovers.
type panicTrace struct {
	mainAlias string // the name func main is compiled under (entry.go)
	mu        sync.Mutex
	frames    []traceFrame
}

type traceFrame struct {
	function, file string
	line           string
}

var traceLine = regexp.MustCompile(`^(.+?\.go):(\d+):\d+: panic: (.+)\(\.\.\.\)\n$`)

type traceFilter struct {
	trace *panicTrace
	out   io.Writer
}

func (t *panicTrace) filter(out io.Writer) io.Writer { return traceFilter{trace: t, out: out} }

func (f traceFilter) Write(p []byte) (int, error) {
	if m := traceLine.FindSubmatch(p); m != nil {
		f.trace.mu.Lock()
		f.trace.frames = append(f.trace.frames, traceFrame{function: string(m[3]), file: string(m[1]), line: string(m[2])})
		f.trace.mu.Unlock()
		return len(p), nil
	}
	return f.out.Write(p)
}

// stack renders the frames seen so far like a Go stack (innermost first) and forgets them.
func (t *panicTrace) stack(dir string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	b.WriteString("goroutine 1 [running]:\n")
	for _, f := range t.frames {
		function := f.function
		if t.mainAlias != "" && function == "main."+t.mainAlias {
			function = "main.main"
		}
		fmt.Fprintf(&b, "%s(...)\n\t%s:%s\n", function, filepath.Join(dir, programPath(f.file)), f.line)
	}
	t.frames = nil
	return b.String()
}

// reportPanic ends a program whose panic nothing recovered as Go's runtime does: "panic: ..."
// and the stack on stderr, exit status 2.
func reportPanic(dir string, value any, trace *panicTrace) int {
	fmt.Fprintf(os.Stderr, "panic: %s\n\n%s", panicText(value), trace.stack(dir))
	return 2
}

// withoutInterpreterPosition drops the "gopath/src/main/main.go:9:7: " the interpreter puts in
// front of some runtime errors (a failed type assertion): Go's message has no position.
func withoutInterpreterPosition(message string) string {
	if !strings.HasPrefix(message, interpGoPath+"/src/") {
		return message
	}
	if m := positionPrefix.FindStringIndex(message); m != nil {
		return message[m[1]:]
	}
	return message
}

var positionPrefix = regexp.MustCompile(`^\S+\.go:\d+:\d+: `)

// panicText prints a panic value as the runtime's printpanicval does.
func panicText(value any) string {
	return withoutInterpreterPosition(panicValueText(value))
}

func panicValueText(value any) string {
	switch v := value.(type) {
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case string:
		return v
	case nil:
		return "nil"
	}
	rv := reflect.ValueOf(value)
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		if rv.Type().PkgPath() == "" {
			return fmt.Sprint(value)
		}
		return fmt.Sprintf("%s(%v)", rv.Type(), value)
	}
	return fmt.Sprintf("(%T) %v", value, value)
}

// interpreterFailure tells a panic raised by the interpreter's own machinery (reflect misuse,
// its internal types) apart from the program's: those say nothing true about the program, so
// the runner reports a limitation instead of a panic result.
func interpreterFailure(value any) string {
	if _, ok := value.(*reflect.ValueError); ok {
		return fmt.Sprintf("the interpreter failed while running the program: %v", value)
	}
	text := fmt.Sprint(value)
	for _, marker := range []string{"reflect:", "reflect.", "interp.", "yaegi"} {
		if strings.Contains(text, marker) {
			return "the interpreter failed while running the program: " + text
		}
	}
	return ""
}
