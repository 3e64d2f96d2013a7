package main

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// dropInternalWrappers removes from a generated symbol table the interface wrappers that cannot
// compile: those whose methods use a type of another module's internal package
// (google.golang.org/api/option's ClientOption takes an *internal.DialSettings), and those that
// name two packages of one name (kubernetes.Interface returns the typed clients of apps/v1,
// core/v1, ...: the extractor imports them all as "v1"). Only the wrapper goes, which is what
// would let interpreted code implement the interface; the package's functions and types stay
// usable. It returns the new source and the names of the interfaces that lost their wrapper.
func dropInternalWrappers(src []byte) ([]byte, []string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "symbols.go", src, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	internalNames := map[string]bool{} // import names a wrapper must not use
	seen := map[string]int{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := path[strings.LastIndexByte(path, '/')+1:]
		if spec.Name != nil {
			name = spec.Name.Name
		}
		seen[name]++
		if strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/") {
			internalNames[name] = true
		}
	}
	for name, n := range seen {
		if n > 1 {
			internalNames[name] = true
		}
	}
	if len(internalNames) == 0 {
		return src, nil, nil
	}
	usesInternal := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && internalNames[id.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	// Wrapper types using an internal type, then their methods and their map entries.
	dropped := map[string]bool{}
	for _, decl := range f.Decls {
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, spec := range gd.Specs {
				if ts := spec.(*ast.TypeSpec); usesInternal(ts) {
					dropped[ts.Name.Name] = true
				}
			}
		}
	}
	var decls []ast.Decl
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok == token.TYPE && len(d.Specs) == 1 && dropped[d.Specs[0].(*ast.TypeSpec).Name.Name] {
				continue
			}

		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok && dropped[id.Name] {
					continue
				}
			}
		}
		decls = append(decls, decl)
	}
	f.Decls = decls
	var lost []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var elts []ast.Expr
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && mentionsAny(kv.Value, dropped) {
				key, _ := strconv.Unquote(kv.Key.(*ast.BasicLit).Value)
				lost = append(lost, strings.TrimPrefix(key, "_"))
				continue
			}
			elts = append(elts, e)
		}
		lit.Elts = elts
		return true
	})
	// Imports nothing uses any more go (an unused import does not compile).
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	for _, decl := range f.Decls {
		if d, ok := decl.(*ast.GenDecl); ok && d.Tok == token.IMPORT {
			var kept []ast.Spec
			for _, spec := range d.Specs {
				is := spec.(*ast.ImportSpec)
				path, _ := strconv.Unquote(is.Path.Value)
				name := path[strings.LastIndexByte(path, '/')+1:]
				if is.Name != nil {
					name = is.Name.Name
				}
				if used[name] && !(internalNames[name] && seen[name] > 1) || name == "_" {
					kept = append(kept, spec)
				}
			}
			d.Specs = kept
		}
	}
	f.Comments = nil // comments of removed declarations would be misplaced
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), lost, nil
}

func mentionsAny(n ast.Node, names map[string]bool) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}
