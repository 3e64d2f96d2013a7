package main

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing/fstest"
)

// The interpreter finds source packages in a GOPATH layout; programFS serves the program's
// folder (/app) both as $GOPATH/src/main, the entry package (its import path "main" is the one
// the interpreter's own main package has, so its functions can be looked up by name), and as
// $GOPATH/src/kode_gopher_user, so that a helper package in /app/<dir> is kode_gopher_user/<dir>,
// the import path the compiled build gives it. Nothing is copied or written.
const (
	interpGoPath     = "gopath"
	userModulePath   = "kode_gopher_user"
	entryPackagePath = "main"
	programRootInFS  = interpGoPath + "/src/" + userModulePath
	entryRootInFS    = interpGoPath + "/src/" + entryPackagePath
)

type programFS struct {
	root      fs.FS        // the program's folder
	rewritten fstest.MapFS // files served with other content (see entry.go), by path in root
}

func newProgramFS(dir string, rewritten fstest.MapFS) programFS {
	return programFS{root: os.DirFS(dir), rewritten: rewritten}
}

// inner maps a name of the interpreter's file system to one in the program's folder.
func (p programFS) inner(name string) (string, bool) {
	for _, root := range []string{programRootInFS, entryRootInFS} {
		switch {
		case name == root:
			return ".", true
		case strings.HasPrefix(name, root+"/"):
			return strings.TrimPrefix(name, root+"/"), true
		}
	}
	return "", false
}

func (p programFS) Open(name string) (fs.File, error) {
	inner, ok := p.inner(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if _, ok := p.rewritten[inner]; ok {
		return p.rewritten.Open(inner)
	}
	return p.root.Open(inner)
}

// ReadDir leaves out test files: go build does not compile them, and the interpreter's test
// mode (which compiles the entry package without running main) would. It also leaves out the
// generated kg_wrapper.go, whose work the runner does itself (wrapper.go).
func (p programFS) ReadDir(name string) ([]fs.DirEntry, error) {
	inner, ok := p.inner(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries, err := fs.ReadDir(p.root, inner)
	if err != nil {
		return nil, err
	}
	kept := entries[:0]
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") || e.Name() == ".kode-gopher" || (inner == "." && e.Name() == wrapperFileName) {
			continue
		}
		kept = append(kept, e)
	}
	return kept, nil
}

// programPath turns a file name in the interpreter's messages back into one relative to the
// program's folder ("main.go", "util/strings.go"); other names come back unchanged.
func programPath(name string) string {
	name = path.Clean(strings.TrimPrefix(name, "./"))
	if inner, ok := (programFS{}).inner(name); ok {
		return inner
	}
	return name
}
