package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// program is the folder as the compiled-go plugin writes it: root files of package main (the
// generated kg_wrapper.go among them in wrapped mode) and helper packages in subfolders.
type program struct {
	dir      string
	wrapped  bool
	fset     *token.FileSet
	root     []*ast.File            // the entry package, kg_wrapper.go left out
	helpers  map[string][]*ast.File // import path -> files
	rootPath map[*ast.File]string   // file -> path relative to dir
}

func loadProgram(dir string) (*program, error) {
	p := &program{dir: dir, fset: token.NewFileSet(), helpers: map[string][]*ast.File{}, rootPath: map[*ast.File]string{}}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "persist") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if rel == wrapperFileName {
			p.wrapped = true
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A file that does not parse is left to the interpreter, which reports it.
		f, _ := parser.ParseFile(p.fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if f == nil {
			return nil
		}
		p.rootPath[f] = rel
		if d := filepath.Dir(rel); d == "." {
			p.root = append(p.root, f)
		} else {
			importPath := userModulePath + "/" + filepath.ToSlash(d)
			p.helpers[importPath] = append(p.helpers[importPath], f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the program in %s: %w", dir, err)
	}
	if len(p.root) == 0 {
		return nil, fmt.Errorf("no .go file at the root of %s", dir)
	}
	return p, nil
}

// allFiles lists every parsed file, root first, in a stable order.
func (p *program) allFiles() []*ast.File {
	files := append([]*ast.File(nil), p.root...)
	var paths []string
	for path := range p.helpers {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		files = append(files, p.helpers[path]...)
	}
	return files
}

// runDiagnostic points at the snippet's func run.
func (p *program) runDiagnostic(text string) diagnostic {
	for _, f := range p.root {
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "run" {
				pos := p.fset.Position(fn.Name.Pos())
				return diagnostic{File: pos.Filename, Line: pos.Line, Col: pos.Column, Message: text}
			}
		}
	}
	return diagnostic{Message: text}
}
