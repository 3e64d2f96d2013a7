package main

import (
	"fmt"
	"go/ast"
	"os"
	"testing/fstest"
)

// The interpreter runs a package main's func main as soon as it compiles anything in package
// main, so the runner could not compile first, report "compiled", and then run. It therefore
// serves the root file that declares func main with that one identifier renamed to a name of
// the same length (every position the interpreter reports stays true) that the program does not
// use, and calls that function itself.

var entryAliases = []string{"kgm0", "kgm1", "kgm2", "kgm3", "kgm4", "kgm5", "kgm6", "kgm7", "kgm8", "kgm9"}

// renameMain returns the rewritten root file and the alias main has in it.
func (p *program) renameMain() (fstest.MapFS, string, error) {
	used := map[string]bool{}
	var mainDecl *ast.FuncDecl
	var mainFile *ast.File
	for _, f := range p.root {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					used[d.Name.Name] = true
					if d.Name.Name == "main" {
						mainDecl, mainFile = d, f
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
	}
	if mainDecl == nil {
		return nil, "", fmt.Errorf("package main has no func main")
	}
	alias := ""
	for _, a := range entryAliases {
		if !used[a] {
			alias = a
			break
		}
	}
	if alias == "" {
		return nil, "", fmt.Errorf("the program uses every name the runner could give func main")
	}
	path := p.rootPath[mainFile]
	src, err := os.ReadFile(p.dir + "/" + path)
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", path, err)
	}
	offset := p.fset.Position(mainDecl.Name.Pos()).Offset
	rewritten := append([]byte(nil), src...)
	copy(rewritten[offset:], alias)
	return fstest.MapFS{path: &fstest.MapFile{Data: rewritten, Mode: 0o644}}, alias, nil
}
