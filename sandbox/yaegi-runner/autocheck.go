package main

import (
	"fmt"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// The --auto static check: a program goes to the interpreter only if every import has symbols
// in the runner and none of the constructs known to make the interpreter differ from the
// compiler appears (docs/contracts.md §5, the corpus in tests/yaegi-corpus). It is deliberately
// conservative: a false "no" costs a go build, a false "yes" is a silent wrong answer. It reads
// the program with go/parser and go/types (imports resolved to empty packages: only the
// program's own types matter to the rules), which takes well under a millisecond for a snippet.

type verdict struct {
	accepted bool
	reason   string
}

func declined(format string, args ...any) verdict {
	return verdict{reason: fmt.Sprintf(format, args...)}
}

func checkProgram(p *program) verdict {
	if v := checkImports(p); !v.accepted {
		return v
	}
	c := newConstructCheck(p)
	if len(c.rejections) > 0 {
		d := c.rejections[0]
		return declined("the compiler would reject it (%s:%d: %s)", d.File, d.Line, d.Message)
	}
	if problem := c.run(); problem != "" {
		return verdict{reason: problem}
	}
	if problem := c.checkLoopWork(); problem != "" {
		return verdict{reason: problem}
	}
	imports := p.importPaths()
	described := "no imports"
	if len(imports) > 0 {
		described = "its imports (" + strings.Join(imports, ", ") + ") have interpreter symbols"
	}
	return verdict{accepted: true, reason: described + " and it uses none of the constructs known to make the interpreter differ from the compiler"}
}

// importPaths lists the program's imports outside its own helper packages, sorted.
func (p *program) importPaths() []string {
	seen := map[string]bool{}
	for _, f := range p.allFiles() {
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if !strings.HasPrefix(path, userModulePath+"/") {
				seen[path] = true
			}
		}
	}
	var out []string
	for path := range seen {
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}

// position renders a node's position as "main.go:12".
func (p *program) position(pos token.Pos) string {
	at := p.fset.Position(pos)
	return fmt.Sprintf("%s:%d", at.Filename, at.Line)
}

// checkImports: every import must have symbols, and none of the packages whose use differs
// under the interpreter may appear.
func checkImports(p *program) verdict {
	available := availablePackages()
	for _, f := range p.allFiles() {
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			at := p.position(spec.Pos())
			if strings.HasPrefix(path, userModulePath+"/") {
				if _, ok := p.helpers[path]; !ok {
					return declined("imports %s at %s, a helper package the program does not contain", path, at)
				}
				continue
			}
			if why, ok := divergentPackages[path]; ok {
				return declined("imports %s at %s (%s)", path, at, why)
			}
			if why, ok := curatedUnavailable[path]; ok {
				return declined("imports %s at %s, a curated package the interpreter has no symbols for (%s)", path, at, why)
			}
			if !available[path] {
				return declined("imports %s at %s, which the interpreter has no symbols for", path, at)
			}
		}
	}
	return verdict{accepted: true}
}

// divergentPackages have symbols but behave differently when interpreted, or exist to reach
// below the language.
var divergentPackages = map[string]string{
	"C":               "cgo is not interpreted",
	"unsafe":          "unsafe memory layouts differ for interpreted types",
	"embed":           "//go:embed is not interpreted",
	"reflect":         "interpreted types look different through reflection",
	"runtime":         "callers, stacks and goroutine state are the interpreter's",
	"runtime/debug":   "stacks and build information are the interpreter's",
	"runtime/pprof":   "profiles are the interpreter's",
	"runtime/trace":   "traces are the interpreter's",
	"testing":         "tests are run with go test, not interpreted",
	"plugin":          "plugins need the compiler",
	"go/importer":     "it reads the interpreter binary's export data",
	"debug/buildinfo": "build information is the interpreter's",
}

// compilerRejections lists what go build would reject but the interpreter runs anyway (unused
// variables and imports, a missing return): without --auto the runner reports them as the
// compile error they are.
func compilerRejections(p *program) []diagnostic {
	return newConstructCheck(p).rejections
}
