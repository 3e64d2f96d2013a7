package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
)

// runBuild builds DIR into -o. Exit status: 0 built; 1 a compile error, reported exactly as go
// build reports it; 3 declined (the reason on stderr, prefixed "fallback: "): the caller runs go
// build, which also covers every failure of this path that is not the user's compile error.
func runBuild(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(programName+" build", flag.ContinueOnError)
	flags.SetOutput(stderr)
	dataPath := flags.String("data", "", "the data file prepare wrote")
	goVersion := flags.String("go", "", "the toolchain the caller builds with (go1.26.8)")
	digest := flags.String("lockfile-digest", "", "the lockfile the caller builds with")
	out := flags.String("o", "", "the binary to write")
	memoryLimit := flags.Int64("memory-limit", 0, "the build's memory limit in bytes (0: none known); tools.go says how it is used")
	if err := flags.Parse(args); err != nil || *dataPath == "" || *goVersion == "" || *digest == "" || *out == "" || *memoryLimit < 0 || flags.NArg() != 1 {
		usage(stderr)
		return exitUsage
	}
	// This process lives for one build and holds a few megabytes (the data, the program's
	// packages): the collector would only cost time.
	debug.SetGCPercent(-1)
	err := buildProgram(buildRequest{*dataPath, *goVersion, *digest, flags.Arg(0), *out, *memoryLimit}, stderr)
	var compileFailed *compileError
	switch {
	case err == nil:
		return exitBuilt
	case errors.As(err, &compileFailed):
		return exitCompileFailed
	default:
		fmt.Fprintf(stderr, "fallback: %v\n", err)
		return exitDeclined
	}
}

type compileError struct{}

func (*compileError) Error() string { return "compile error" }

// buildRequest is what build was asked: the data, what it must be for, the program and the binary.
type buildRequest struct {
	dataPath, goVersion, digest string
	dir, out                    string
	memoryLimit                 int64 // the build's memory limit in bytes; 0: none known
}

func buildProgram(req buildRequest, stderr io.Writer) error {
	data, err := readData(req.dataPath)
	if err != nil {
		return decline("no precomputed data: %v", err)
	}
	if data.GoVersion != req.goVersion || data.LockfileDigest != req.digest {
		return decline("the precomputed data is for %s and lockfile %.12s, not %s and %.12s (`kode-gopherd --prewarm` computes it again)",
			data.GoVersion, data.LockfileDigest, req.goVersion, req.digest)
	}
	work, err := newWorkDir(req.dir, req.memoryLimit)
	if err != nil {
		return err
	}
	defer work.remove()
	prog, err := loadProgram(data, work.cwd)
	if err != nil {
		return err
	}
	archives := map[string]string{}
	failed := map[string]bool{}
	for _, p := range prog.packages {
		if importsAny(p, failed) {
			failed[p.importPath] = true // go build skips what depends on a failed package
			continue
		}
		output, ok, err := compilePackage(data, work, p, archives)
		if err != nil {
			return err
		}
		io.WriteString(stderr, output)
		if !ok {
			failed[p.importPath] = true
		}
	}
	if len(failed) > 0 {
		return &compileError{}
	}
	return linkProgram(data, work, prog, archives, req.out)
}

func importsAny(p *localPackage, failed map[string]bool) bool {
	for _, imp := range p.imports {
		if failed[imp] {
			return true
		}
	}
	return false
}

// workDir is the build's scratch folder ($WORK), the folder the build runs from and the
// build's memory limit (the tools' garbage collector settings, tools.go).
type workDir struct {
	root        string
	cwd         string
	next        int
	memoryLimit int64
}

func newWorkDir(dir string, memoryLimit int64) (*workDir, error) {
	cwd, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "kode-gopher-fastbuild-")
	if err != nil {
		return nil, err
	}
	return &workDir{root: root, cwd: cwd, memoryLimit: memoryLimit}, nil
}

func (w *workDir) objdir(p *localPackage) (string, error) {
	w.next++
	dir := filepath.Join(w.root, "b"+strconv.Itoa(w.next))
	return dir, os.Mkdir(dir, 0o755)
}

func (w *workDir) remove() { os.RemoveAll(w.root) }
